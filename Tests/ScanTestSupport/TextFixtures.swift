public import Foundation

/// The text-encoding fixtures (Tests/Fixtures/generated/text, made by Tests/Fixtures/make_text_fixtures.py):
/// one code per failure class of issue 15, with its exact payload, text and character set.
public enum TextFixtures {
    /// One fixture image and what reading it must give.
    public struct Case: Sendable, CustomStringConvertible {
        public var file: String
        /// The `MetadataObjectType` raw name.
        public var type: String
        /// The text (`value`); nil for a binary payload.
        public var text: String?
        /// The exact payload (`bytes`).
        public var payload: [UInt8]
        /// The expected `charset` and `charsetSource`; nil for a binary payload.
        public var charset: String?
        public var source: String?
        public var gs1: Bool
        /// Code 39 Full ASCII: the symbol's plain Code 39 data (read without the Full ASCII option).
        public var raw: String?
        public var description: String { file }
    }

    public static let directory: URL = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/generated/text")
    public static let script = "Tests/Fixtures/make_text_fixtures.py"

    /// The cases, generating the fixtures first when they are missing (written to a temporary folder and
    /// moved into place, so concurrent test processes never see half a set).
    public static let cases: [Case] = {
        let list = Fixtures.generatedCases(in: directory, script: script, needs: "qrencode, zint, python3-pil, python3-segno")
        return list.map { e in
            Case(file: e["file"] as! String, type: e["type"] as! String, text: e["text"] as? String,
                 payload: Fixtures.hex(e["hex"] as! String), charset: e["charset"] as? String,
                 source: e["source"] as? String, gs1: e["gs1"] as? Bool ?? false, raw: e["raw"] as? String)
        }
    }()

    public static func `case`(_ file: String) -> Case { cases.first { $0.file == file }! }

    public static func path(_ file: String) -> String { directory.appendingPathComponent(file).path }
}
