import Foundation
import Testing
import ScanCore
import ScanOutput

@Suite("JSON lines: view geometry")
struct ViewEncodingTests {
    func object(_ line: [UInt8]) throws -> [String: Any] {
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        let objects = try #require(event["objects"] as? [[String: Any]])
        return try #require(objects.first)
    }

    @Test("codes carry view bounds and corners in points, rounded to 3 decimals")
    func codeView() throws {
        let geometry = PreviewGeometry(viewSize: ViewSize(width: 390, height: 844), videoGravity: .resizeAspectFill,
                                       orientation: .portrait, frameSize: PixelSize(width: 1920, height: 1080))
        let corners = [NormalizedPoint(x: 0, y: 0), NormalizedPoint(x: 0.25, y: 0),
                       NormalizedPoint(x: 0.25, y: 0.75), NormalizedPoint(x: 0, y: 0.75)]
        let code = geometry.transformed(MetadataObject(type: .qr, bounds: NormalizedRect(boundingPoints: corners),
                                                       corners: corners, stringValue: "x"))
        let event = MetadataEvent(source: "s", frame: 0, time: 0, width: 1920, height: 1080, objects: [code])
        let line = JSONLinesEncoder().encode(.metadata(event)).line
        #expect(line.last == 0x0A && !line.dropLast().contains(0x0A))
        let o = try object(line)
        let view = try #require(o["view"] as? [String: Any])
        let viewCorners = try #require(view["corners"] as? [[String: Double]])
        #expect(viewCorners.first == ["x": 432.375, "y": 0])
        #expect(viewCorners[2] == ["x": 76.313, "y": 211]) // (0.25, 0.75) → 76.3125, rounded half away from zero
        let bounds = try #require(view["bounds"] as? [String: Double])
        #expect(bounds == ["x": 76.313, "y": 0, "width": 356.063, "height": 211])
        #expect(view["rollAngle"] == nil && view["yawAngle"] == nil)
        // Device-space fields stay.
        #expect((o["corners"] as? [[String: Double]])?.first == ["x": 0, "y": 0])
    }

    @Test("faces carry view roll and yaw, no corners")
    func faceView() throws {
        let geometry = PreviewGeometry(viewSize: ViewSize(width: 100, height: 100), orientation: .portrait,
                                       isMirrored: true, frameSize: PixelSize(width: 640, height: 480))
        let face = geometry.transformed(MetadataObject(type: .face, bounds: NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4),
                                                       faceID: 1, rollAngle: 10, yawAngle: 45))
        let event = MetadataEvent(source: "s", frame: 0, time: 0, width: 640, height: 480, objects: [face])
        let o = try object(JSONLinesEncoder().encode(.metadata(event)).line)
        let view = try #require(o["view"] as? [String: Any])
        #expect(view["corners"] == nil)
        #expect(view["rollAngle"] as? Double == -100)
        #expect(view["yawAngle"] as? Double == 315)
        #expect(o["rollAngle"] as? Double == 10 && o["yawAngle"] as? Double == 45)
    }
}
