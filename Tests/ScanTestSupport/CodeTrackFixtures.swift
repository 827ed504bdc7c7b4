public import Foundation

/// The code-track fixtures (issue 50): Tests/Fixtures/generated/tracks, made by
/// Tests/Fixtures/make_code_tracks.py (zint, qrencode, numpy, PIL; deterministic).
public enum CodeTrackFixtures {
    public static let directory = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/generated/tracks")
    static let script = "Tests/Fixtures/make_code_tracks.py"

    /// One still with identical codes (`cases.json`).
    public struct Still: Sendable, CustomStringConvertible {
        public var file: String
        /// scand's type name.
        public var type: String
        public var value: String
        /// How many symbols the image holds.
        public var count: Int
        /// Each symbol's box, pixels: x0, y0, x1, y1.
        public var boxes: [[Double]]
        public var width: Double, height: Double
        public var description: String { file }
    }

    /// The stills, the set made first when missing.
    public static let stills: [Still] = {
        Fixtures.generatedCases(in: directory, script: script, needs: "zint, qrencode, python3-numpy, python3-pil").map {
            Still(
                file: $0["file"] as! String, type: $0["type"] as! String, value: $0["value"] as! String,
                count: $0["count"] as! Int, boxes: ($0["boxes"] as! [[Any]]).map { $0.map { ($0 as! NSNumber).doubleValue } },
                width: ($0["width"] as! NSNumber).doubleValue, height: ($0["height"] as! NSNumber).doubleValue)
        }
    }()

    /// A file of the set (made first when missing).
    public static func path(_ name: String) -> String {
        _ = stills
        return directory.appendingPathComponent(name).path
    }

    /// One card on one frame of conveyor.y4m: its index and its left and right edges (pixels; the EAN-13 label
    /// sits 10 px inside, its bars 20 px further in).
    public struct Card: Sendable {
        public var card: Int, left: Double, right: Double
    }

    /// conveyor.json: per frame, the cards in view (wholly or partly).
    public static func conveyorTruth() throws -> (value: String, width: Double, frames: [[Card]]) {
        _ = stills
        let data = try Data(contentsOf: directory.appendingPathComponent("conveyor.json"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let frames = (json["frames"] as! [[String: Any]]).map { f in
            (f["cards"] as! [[String: Any]]).map {
                Card(card: $0["card"] as! Int, left: ($0["left"] as! NSNumber).doubleValue,
                     right: ($0["right"] as! NSNumber).doubleValue)
            }
        }
        return (json["value"] as! String, (json["width"] as! NSNumber).doubleValue, frames)
    }
}
