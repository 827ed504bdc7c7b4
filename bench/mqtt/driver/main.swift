// scand-mqtt-bench: figures for the MQTT client (issue 19), against a real mosquitto it starts itself.
// Run through bench/mqtt/measure.sh, which builds it (release) and prints the table.
//
//   scand-mqtt-bench throughput N BYTES   events/s from deliver() to the last PUBACK, QoS 1, vs mosquitto_pub -l
//   scand-mqtt-bench memory N BYTES       outbox bytes and process RSS growth with N events queued (broker down)
//   scand-mqtt-bench drain N BYTES        seconds to drain N queued events once the broker is up
// Each prints one JSON line on stdout.
import Foundation
import Logging
import ScanCore
import ScanMQTT
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Monotonic seconds since this process asked first (for the figures printed).
let processStart = MonotonicInstant.now
func now() -> Double { processStart.elapsed.inSeconds }

/// Resident set size of this process in bytes (/proc/self/statm, field 2 × page size).
func rss() -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
    let pages = Int(text.split(separator: " ").dropFirst().first ?? "0") ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// A metadata-like JSON line of about `bytes` bytes with `seq`.
func event(_ seq: Int, bytes: Int) -> EncodedEvent {
    let head = "{\"event\":\"metadata\",\"seq\":\(seq),\"source\":\"/dev/video0\",\"objects\":[{\"type\":\"qr\",\"value\":\""
    let tail = "\"}],\"timestamp\":1795415647.082}"
    let fill = String(repeating: "x", count: max(0, bytes - head.count - tail.count))
    return EncodedEvent(name: "metadata", objectTypes: [], line: Array((head + fill + tail + "\n").utf8), seq: UInt64(seq))
}

func client(_ broker: MosquittoBroker, queue: Int, spool: String? = nil) -> MQTTClient {
    var c = MQTTConfiguration(endpoint: MQTTEndpoint(host: "127.0.0.1", port: broker.port, tls: false), id: "bench", device: "bench", version: "bench")
    c.queueLimit = queue
    c.queueBytes = 4 << 30
    c.reconnectMin = 0.05
    c.reconnectMax = 0.05
    c.spoolDirectory = spool
    c.spoolBytes = 4 << 30
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    return try! MQTTClient(configuration: c, logger: logger)
}

func waitEmpty(_ c: MQTTClient, timeout: Double) -> Bool {
    let end = now() + timeout
    while now() < end { if c.outbox.isEmpty { return true }; usleep(1000) }
    return false
}

func waitConnected(_ c: MQTTClient) { while !c.statistics.connected { usleep(1000) } }

let args = CommandLine.arguments
let mode = args.count > 1 ? args[1] : "throughput"
let n = args.count > 2 ? Int(args[2])! : 10_000
let bytes = args.count > 3 ? Int(args[3])! : 300
// The tests' broker helper: a free loopback port (bound to 0 by the kernel, then released), its own
// temporary directory, started and waited for until its port accepts connections.
let broker = try! MosquittoBroker()
let events = (1...n).map { event($0, bytes: bytes) }

switch mode {
case "throughput":
    try! broker.start()
    let c = client(broker, queue: n + 10)
    c.start()
    waitConnected(c)
    let t0 = now()
    for e in events { c.deliver(e) }
    let td = now() - t0
    let ok = waitEmpty(c, timeout: 120)
    let t = now() - t0
    c.finish(timeout: .seconds(2))
    // The same with --mqtt-spool (every message written to a segment file before it is sent), same broker.
    let spoolDir = broker.directory.url.path + "/spool"
    try! FileManager.default.createDirectory(atPath: spoolDir, withIntermediateDirectories: true)
    let cs = client(broker, queue: n + 10, spool: spoolDir)
    cs.start()
    waitConnected(cs)
    let s0 = now()
    for e in events { cs.deliver(e) }
    let sd = now() - s0
    let sok = waitEmpty(cs, timeout: 120)
    let st = now() - s0
    cs.finish(timeout: .seconds(2))
    let left = (try? FileManager.default.contentsOfDirectory(atPath: spoolDir).count) ?? -1
    // Baseline in the same run: the reference client, mosquitto_pub -l (one message per stdin line), QoS 1.
    let lines = events.map { String(decoding: $0.line, as: UTF8.self) }.joined()
    let file = broker.directory.url.path + "/lines.txt"
    try! lines.write(toFile: file, atomically: true, encoding: .utf8)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", "mosquitto_pub -h 127.0.0.1 -p \(broker.port) -q 1 -t bench/base -l < \(file)"]
    let b0 = now()
    try! p.run(); p.waitUntilExit()
    let tb = now() - b0
    print("{\"mode\":\"throughput\",\"events\":\(n),\"bytes\":\(bytes),\"complete\":\(ok),\"seconds\":\(t),\"eventsPerSecond\":\(Double(n) / t),\"deliverPerSecond\":\(Double(n) / td),\"spoolComplete\":\(sok),\"spoolEventsPerSecond\":\(Double(n) / st),\"spoolDeliverPerSecond\":\(Double(n) / sd),\"spoolFilesLeft\":\(left),\"mosquittoPubSeconds\":\(tb),\"mosquittoPubEventsPerSecond\":\(Double(n) / tb)}")
case "memory":
    // Broker down: everything stays in the outbox, which is bounded at its default (10,000 messages, 16 MiB).
    let before = rss()
    let c = client(broker, queue: 10_000)
    c.start()
    for e in events { c.deliver(e) }
    usleep(200_000)
    let s = c.outbox.statistics
    let after = rss()
    print("{\"mode\":\"memory\",\"delivered\":\(n),\"bytes\":\(bytes),\"queued\":\(s.messages),\"dropped\":\(s.dropped),\"outboxBytes\":\(s.bytes),\"rssGrowth\":\(after - before)}")
    c.finish(timeout: .milliseconds(500))
case "drain":
    let c = client(broker, queue: n + 10)
    c.start()
    for e in events { c.deliver(e) }
    usleep(200_000)
    let queued = c.outbox.statistics.messages
    let t0 = now()   // from the broker's start (it takes a few ms to listen; the client retries every 50 ms)
    try! broker.start()
    waitConnected(c)
    let tc = now() - t0
    let ok = waitEmpty(c, timeout: 120)
    let t = now() - t0
    print("{\"mode\":\"drain\",\"queued\":\(queued),\"bytes\":\(bytes),\"complete\":\(ok),\"secondsToConnect\":\(tc),\"secondsToDrain\":\(t)}")  // both from the broker's start
    c.finish(timeout: .seconds(2))
default:
    FileHandle.standardError.write(Data("usage: scand-mqtt-bench throughput|memory|drain N BYTES\n".utf8))
    broker.stop()
    try? FileManager.default.removeItem(at: broker.directory.url)
    exit(2)
}
broker.stop()
// A global is never deinitialised: remove the broker's directory here.
try? FileManager.default.removeItem(at: broker.directory.url)
