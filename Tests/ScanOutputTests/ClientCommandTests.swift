import Testing
import ScanCore
import ScanOutput

@Suite struct ClientCommandTests {
    func parse(_ text: String) throws(CommandError) -> ClientCommand { try ClientCommand.parse(command: Array(text.utf8)) }

    @Test func pollDevicesAndSubscribe() throws {
        #expect(try parse(#"{"poll":{}}"#) == .poll)
        #expect(try parse(#"{"devices":{}}"#) == .devices)
        #expect(try parse(#"{"subscribe":{"types":["qr"]}}"#) == .subscribe(Subscription(types: [.qr])))
    }

    @Test func errorsNameTheKnownCommands() {
        for (text, reason) in [(#"{"pol":{}}"#, "unknown command (known: subscribe, poll, devices)"),
                               (#"{"poll":{},"devices":{}}"#, "one command per line"),
                               (#"{"poll":{},"subscribe":{}}"#, "one command per line"),
                               ("nonsense", "malformed"),
                               (#"{"subscribe":{"types":["qrr"]}}"#, "unknown type 'qrr'")] {
            do { _ = try parse(text); Issue.record("\(text) was accepted") } catch {
                #expect(error.message.contains(reason), "\(text): \(error.message)")
            }
        }
    }
}
