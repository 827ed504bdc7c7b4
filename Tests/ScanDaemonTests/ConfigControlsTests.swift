import Testing
import ScanCore
import ScanDaemon

/// The config file's `controls` object (issue 18): control name → number, boolean or menu item name.
@Suite struct ConfigControlsTests {
    @Test func controlsBecomeTextValues() throws {
        let c = try DaemonConfigFile.parse(Array(#"{"device": "/dev/video0", "controls": {"brightness": 140, "white_balance_automatic": false, "auto_exposure": "Manual Mode"}}"#.utf8), name: "t.json")
        #expect(c.controls == ["brightness": "140", "white_balance_automatic": "0", "auto_exposure": "Manual Mode"])
    }

    @Test func aBadValueNamesTheKeyAndPlace() {
        do {
            _ = try DaemonConfigFile.parse(Array("{\n \"controls\": {\"brightness\": 1.5}}".utf8), name: "t.json")
            Issue.record("no error")
        } catch {
            #expect("\(error)".contains("t.json:2:"), "\(error)")
            #expect("\(error)".contains("controls.brightness"), "\(error)")
        }
        #expect(throws: (any Error).self) { try DaemonConfigFile.parse(Array(#"{"controls": [1]}"#.utf8), name: "t") }
    }
}
