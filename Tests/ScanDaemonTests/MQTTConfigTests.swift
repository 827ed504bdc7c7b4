import Testing
import ScanDaemon

/// The config file's "mqtt" section (issue 19): every key, and errors that name the key, line and column.
@Suite struct MQTTConfigTests {
    @Test func parsesEveryKey() throws {
        let text = """
        {"mqtt": {"url": "mqtts://broker.lan:8883", "ca": "/etc/ca.pem", "cert": "/c.pem", "key": "/k.pem",
                  "username": "kiosk-07", "passwordFile": "/run/pw", "passwordEnv": "PW", "id": "kiosk-07",
                  "topicPrefix": "site/a", "qos": 2, "kindTopics": true, "queue": 500, "queueBytes": 65536,
                  "inFlight": 10, "keepalive": 15, "reconnectMax": 2.5, "spool": "/var/lib/scand",
                  "spoolBytes": 1048576, "metadata": true, "discovery": true, "discoveryPrefix": "ha"}}
        """
        let m = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json").mqtt
        #expect(m.url == "mqtts://broker.lan:8883" && m.ca == "/etc/ca.pem" && m.cert == "/c.pem" && m.key == "/k.pem")
        #expect(m.username == "kiosk-07" && m.passwordFile == "/run/pw" && m.passwordEnv == "PW" && m.id == "kiosk-07")
        #expect(m.topicPrefix == "site/a" && m.qos == 2 && m.kindTopics == true && m.queue == 500 && m.queueBytes == 65536)
        #expect(m.inFlight == 10 && m.keepalive == 15 && m.reconnectMax == 2.5 && m.spool == "/var/lib/scand" && m.spoolBytes == 1_048_576)
        #expect(m.metadata == true && m.discovery == true && m.discoveryPrefix == "ha")
        #expect(try DaemonConfigFile.parse(Array("{}".utf8), name: "t").mqtt == MQTTConfigSection())
        // The broker URL alone, as `--mqtt URL`; tcp:// is mqtt://.
        #expect(try DaemonConfigFile.parse(Array(#"{"mqtt": "tcp://broker.lan:1883"}"#.utf8), name: "t").mqtt.url == "tcp://broker.lan:1883")
    }

    @Test func errorsNameTheKey() {
        let cases: [(String, String)] = [
            (#"{"mqtt": {"password": "x"}}"#, "t.json:1:11: unknown config key 'mqtt.password'"),
            (#"{"mqtt": {"qos": 3}}"#, "'mqtt.qos' must be 0, 1 or 2, got 3"),
            (#"{"mqtt": {"url": "http://x"}}"#, "'mqtt.url' must start with mqtt://, tcp:// or mqtts://"),
            (#"{"mqtt": {"queue": 0}}"#, "'mqtt.queue' must be 1...10000000, got 0"),
            (#"{"mqtt": {"spoolBytes": 100}}"#, "'mqtt.spoolBytes' must be at least 4096, got 100"),
            (#"{"mqtt": {"kindTopics": "yes"}}"#, "'mqtt.kindTopics' must be true or false"),
        ]
        for (text, message) in cases {
            do {
                _ = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".contains(message), "\(text): \(error)")
            }
        }
    }
}
