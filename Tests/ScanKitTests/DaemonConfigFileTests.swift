import Testing
import ScanCore
import ScanKit

@Suite struct DaemonConfigFileTests {
    @Test func parsesEveryKey() throws {
        let text = """
        {"input": "a.y4m", "types": ["qr", "ean13"], "rectOfInterest": [0.1, 0.2, 0.5, 0.6], "tryInverted": false,
         "scanDensity": 2, "models": "/m", "metadata": false, "pacing": false, "loop": true, "exitAtEnd": true,
         "stdout": true, "logLevel": "info",
         "socket": {"path": "/run/scand/scand.sock", "group": "video", "clientQueue": 10, "stallTimeout": 3, "sendBuffer": 8192},
         "presence": {"enabled": true, "appearAfterFrames": 2, "lostAfter": 1.5, "cooldown": 3, "faceLostAfter": 0.25}}
        """
        let c = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
        #expect(c.input == "a.y4m" && c.types == "qr,ean13" && c.tryInverted == false && c.scanDensity == 2)
        #expect(c.rectOfInterest == NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.6))
        #expect(c.metadata == false && c.pacing == false && c.loop == true && c.exitAtEnd == true && c.stdout == true)
        #expect(c.socket.path == "/run/scand/scand.sock" && c.socket.group == "video" && c.socket.clientQueue == 10)
        #expect(c.socket.stallTimeout == 3 && c.socket.sendBuffer == 8192)
        #expect(c.presence.appearAfterFrames == 2 && c.presence.lostAfter == 1.5 && c.presence.cooldown == 3)
        #expect(c.presence.faceLostAfter == 0.25 && c.presence.enabled == true)
        let s = try DaemonConfigFile.parse(Array(#"{"types": "qr,face"}"#.utf8), name: "t")
        #expect(s.types == "qr,face")
        #expect(try DaemonConfigFile.parse(Array("{}".utf8), name: "t") == DaemonConfigFile())
    }

    @Test func errorsNameTheFileAndKey() {
        let cases: [(String, String)] = [
            (#"{"sokcet": {}}"#, "unknown config key 'sokcet'"),
            (#"{"presence": {"grace": 1}}"#, "unknown config key 'presence.grace'"),
            (#"{"loop": "yes"}"#, "t.json: wrong type at loop"),
            ("{", "t.json: not valid JSON"),
            (#"{"rectOfInterest": [1, 2]}"#, "rectOfInterest takes"),
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
