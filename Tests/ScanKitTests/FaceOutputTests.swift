import Foundation
import Testing
import ScanCore
import ScanKit

/// MetadataOutput with `.face` enabled: real cascades from Models/, fixture from scripts/make-face-fixtures.
@Suite("MetadataOutput faces")
struct FaceOutputTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Reads a binary PGM (P5, 8-bit) as written by the fixture script.
    func loadPGM(_ name: String) throws -> LumaPlane {
        let path = Self.root + "/Tests/Fixtures/generated/faces/" + name
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("missing fixture \(path): run scripts/make-face-fixtures first")
            throw ScanError.unreadableInput(input: path, reason: "missing fixture")
        }
        let bytes = [UInt8](data)
        var fields: [Int] = [], i = 2, current = ""
        while fields.count < 3 {
            let c = Character(UnicodeScalar(bytes[i])); i += 1
            if c.isNumber { current.append(c) } else if !current.isEmpty { fields.append(Int(current)!); current = "" }
        }
        return LumaPlane(width: fields[0], height: fields[1], bytes: Array(bytes[i..<(i + fields[0] * fields[1])]))
    }

    @Test("face is available, reported with a faceID, and presence events follow the grace period")
    func faceOutput() throws {
        #expect(MetadataOutput.availableMetadataObjectTypes.contains(.face))
        var config = OutputConfiguration(metadataObjectTypes: [.face], models: ModelConfiguration(directory: Self.root + "/Models"))
        config.face.presenceGrace = 0.1
        let output = try MetadataOutput(configuration: config)
        let face = try loadPGM("astronaut.pgm")
        let source = SourceInfo(name: "test", frameRate: 30)
        let firstResult = try output.processFrame(Frame(luma: face, index: 0, time: 0), source: source)
        let first = firstResult.event
        #expect(first.objects.count == 1 && first.objects[0].type == .face)
        let id = try #require(first.objects.first?.faceID)
        #expect(firstResult.facePresence.map(\.transition) == [.appeared])
        #expect(firstResult.facePresence.first?.faceID == id)
        // The face vanishes: a flat grey frame of the same size.
        let blank = LumaPlane(width: face.width, height: face.height, bytes: [UInt8](repeating: 128, count: face.width * face.height))
        var lostAt: Int?
        for i in 1...6 {
            let r = try output.processFrame(Frame(luma: blank, index: i, time: Double(i) / 30), source: source)
            #expect(r.event.objects.isEmpty)
            if r.facePresence.contains(where: { $0.transition == .lost && $0.faceID == id }) { lostAt = i }
        }
        // 0.1 s grace at 30 fps: lost on frame 3 (0.1 s after the last sighting), not before.
        #expect(lostAt == 3)
    }

    @Test("a missing models directory is a clear error")
    func missingModels() {
        let config = OutputConfiguration(metadataObjectTypes: [.face], models: ModelConfiguration(directory: "/nonexistent/models"))
        #expect(throws: ScanError.self) { try MetadataOutput(configuration: config) }
    }
}
