import Testing
import ScanCore
@testable import ScanOutput

@Suite struct JSONLinesEncoderTests {
    let encoder = JSONLinesEncoder()

    @Test func metadataLineHasTheContractsExactBytes() {
        let corners = [NormalizedPoint(x: 0.41, y: 0.22), NormalizedPoint(x: 0.59, y: 0.22),
                       NormalizedPoint(x: 0.59, y: 0.53), NormalizedPoint(x: 0.41, y: 0.53)]
        let object = MetadataObject(type: .qr, bounds: NormalizedRect(boundingPoints: corners), corners: corners,
                                    stringValue: "LOGIN:ab12", payload: Array("LOGIN:ab12".utf8))
        let event = MetadataEvent(source: "shelf/1.png", frame: 0, time: 0, width: 1280, height: 720, objects: [object])
        let line = String(decoding: encoder.encode(.metadata(event)).line, as: UTF8.self)
        let expected = #"{"event":"metadata","frame":0,"height":720,"objects":[{"bounds":{"height":0.31,"width":0.18,"x":0.41,"y":0.22},"bytes":"TE9HSU46YWIxMg==","corners":[{"x":0.41,"y":0.22},{"x":0.59,"y":0.22},{"x":0.59,"y":0.53},{"x":0.41,"y":0.53}],"type":"qr","value":"LOGIN:ab12"}],"source":"shelf/1.png","time":0,"width":1280}"#
        #expect(line == expected + "\n")
    }

    @Test func emptyFrameStillGetsALine() {
        let e = encoder.encode(.metadata(MetadataEvent(source: "a", frame: 3, time: 0.2, width: 2, height: 2, objects: [])))
        #expect(String(decoding: e.line, as: UTF8.self) == #"{"event":"metadata","frame":3,"height":2,"objects":[],"source":"a","time":0.2,"width":2}"# + "\n")
        #expect(e.name == "metadata")
    }

    @Test func controlCharactersCannotBreakTheLine() {
        let evil = "a\nb\r\u{1B}[2J\u{0}\u{2028}\"}"
        let o = MetadataObject(type: .qr, bounds: .unit, corners: NormalizedRect.unit.corners, stringValue: evil, payload: Array(evil.utf8))
        let line = encoder.encode(.metadata(MetadataEvent(source: "x\ny", frame: 0, time: 0, width: 1, height: 1, objects: [o]))).line
        #expect(line.filter { $0 == 0x0A }.count == 1)
        #expect(line.last == 0x0A)
        #expect(!line.dropLast().contains { $0 < 0x20 })
    }

    @Test func faceFieldsAndSeqAreAdditions() {
        let face = MetadataObject(type: .face, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.3),
                                  faceID: 7, rollAngle: -12, yawAngle: 0)
        let e = encoder.encode(.metadata(MetadataEvent(source: "s", frame: 1, time: 1, width: 4, height: 4, objects: [face])), seq: 42, timestamp: 1700000000.5)
        let text = String(decoding: e.line, as: UTF8.self)
        #expect(text.contains(#"{"bounds":{"height":0.3,"width":0.2,"x":0.1,"y":0.1},"faceID":7,"rollAngle":-12,"type":"face","yawAngle":0}"#))
        #expect(text.contains(#""seq":42"#) && text.contains(#""timestamp":1700000000.5"#))
        #expect(!text.contains("corners") && !text.contains("null"))
        #expect(e.objectTypes == [.face])
    }

    @Test func numbersAreRoundedWithoutNegativeZero() {
        #expect(r(1.0 / 3.0, 6) == 0.333333)
        #expect(r(-0.0000001, 6).sign == .plus)
        #expect(r(Double.nan, 6) == 0)
    }

    @Test func deviceAndPresenceEvents() {
        let d = encoder.encode(.device(DeviceEvent(kind: .disconnected, device: "/dev/video0", reason: "ENODEV")), seq: 1, timestamp: 2)
        #expect(String(decoding: d.line, as: UTF8.self) == #"{"device":"/dev/video0","event":"device","kind":"deviceDisconnected","reason":"ENODEV","seq":1,"timestamp":2}"# + "\n")
        let p = encoder.encode(.presence(PresenceEvent(transition: .appeared, type: .qr, value: "A", payload: [0x41], source: "s", frame: 2, time: 0.5)))
        #expect(String(decoding: p.line, as: UTF8.self) == #"{"bytes":"QQ==","event":"appeared","frame":2,"source":"s","time":0.5,"type":"qr","value":"A"}"# + "\n")
        #expect(p.name == "appeared" && p.objectTypes == [.qr])
    }

    /// A GS1 element string's presence line carries its Application Identifiers (issue 50), as its object does.
    @Test func gs1PresenceLine() {
        let payload = Array("0109506000134352\u{1D}".utf8) + Array("10A".utf8)
        let p = encoder.encode(.presence(PresenceEvent(transition: .appeared, type: .dataMatrix, value: "x", payload: payload, source: "s", frame: 1, time: 0, isGS1: true)))
        let text = String(decoding: p.line, as: UTF8.self)
        #expect(text.contains(#""gs1":true,"gs1Elements":[{"ai":"01","title":"GTIN","value":"09506000134352"},{"ai":"10","title":"BATCH/LOT","value":"A"}],"gs1Valid":true"#), "\(text)")
        #expect(!text.contains("gs1Error"))
    }

    /// A presence line, streamed or in a new client's snapshot, carries the code's track (`--presence instance`)
    /// and its structured-append marks (issue 50): a part's place and the sequence's size.
    @Test func trackAndSequenceOnPresenceLines() {
        let part = PresenceEvent(
            transition: .appeared, type: .qr, value: "TICKET", payload: Array("TICKET".utf8), source: "s", frame: 3,
            time: 0.1, trackID: 7, sequence: StructuredAppend(index: 1, size: 3, id: "9"))
        let streamed = String(decoding: encoder.encode(.presence(part)).line, as: UTF8.self)
        #expect(streamed.contains(#""sequenceIndex":1,"sequenceSize":3"#), "\(streamed)")
        #expect(streamed.contains(#""trackID":7"#), "\(streamed)")
        let snapshot = String(decoding: encoder.encodeLine(SnapshotLine(part, timestamp: 5)), as: UTF8.self)
        #expect(snapshot.contains(#""sequenceIndex":1,"sequenceSize":3"#) && snapshot.contains(#""trackID":7"#), "\(snapshot)")
        #expect(snapshot.contains(#""snapshot":true"#))
        let plain = String(decoding: encoder.encode(.presence(PresenceEvent(transition: .lost, type: .qr, value: "A", source: "s", frame: 1, time: 0))).line, as: UTF8.self)
        #expect(!plain.contains("sequence") && !plain.contains("trackID"))
    }
}
