/// One detection on one frame: a machine-readable code (`AVMetadataMachineReadableCodeObject`)
/// or a face (`AVMetadataFaceObject`). All geometry is in normalized device coordinates.
public struct MetadataObject: Sendable, Hashable {
    public var type: MetadataObjectType
    /// Upright bounding box, normalized device coordinates.
    public var bounds: NormalizedRect
    /// For 2-D codes the symbol's corners; for 1-D codes the corners of the scanned region.
    /// Normalized device coordinates, in the order the symbol's own top-left, top-right, bottom-right,
    /// bottom-left (so it rotates with the symbol). Empty for faces.
    public var corners: [NormalizedPoint]
    /// Decoded text (`stringValue`); nil for a binary payload that is not text.
    public var stringValue: String?
    /// The exact payload bytes.
    public var payload: [UInt8]?
    /// How ``stringValue`` was decoded from ``payload``: the character set and what chose it (an ECI, QR's
    /// Kanji mode, the symbology's own definition, or a guess). nil when there is no text.
    public var textEncoding: TextEncoding?
    /// The payload is a GS1 element string (FNC1 in first position: GS1-128, GS1 DataBar Expanded, GS1 QR
    /// and Data Matrix): application identifiers and their data, variable-length fields ended by GS (0x1D).
    public var isGS1: Bool
    /// zbar's quality score (higher is better), when known.
    public var quality: Int?
    /// Stable face identifier within a run (`faceID`).
    public var faceID: Int?
    /// Codes on a stream: the symbol's track identifier, the same while the symbol stays in view; numbered from 1
    /// per source and never reused within it (`CodeTracker`); nil on a still image.
    public var trackID: Int?
    /// Codes of a structured-append sequence (QR; Data Matrix, Aztec and PDF417 macro where zxing-cpp reads
    /// them): a part, or the whole sequence joined; nil for any other symbol.
    public var sequence: StructuredAppend?
    /// Code 39 read as Full ASCII or as Code 32: the characters as printed (``stringValue`` is the decoding).
    public var rawValue: String?
    /// Code 39 whose characters also read as Full ASCII, reported as printed (not evidently Full ASCII): that
    /// other reading.
    public var fullASCIIValue: String?
    /// Degrees, positive clockwise as displayed (y down); nil when unknown (`hasRollAngle` false).
    public var rollAngle: Double?
    /// Degrees, coarse: 0 frontal, 45/90 turned to the image's right, 315/270 to its left; nil when unknown.
    public var yawAngle: Double?
    /// The same object in view coordinates, when a preview geometry is configured.
    public var view: ViewMetadata?

    public init(
        type: MetadataObjectType, bounds: NormalizedRect, corners: [NormalizedPoint] = [],
        stringValue: String? = nil, payload: [UInt8]? = nil, quality: Int? = nil,
        faceID: Int? = nil, rollAngle: Double? = nil, yawAngle: Double? = nil, view: ViewMetadata? = nil,
        textEncoding: TextEncoding? = nil, isGS1: Bool = false, trackID: Int? = nil,
        sequence: StructuredAppend? = nil
    ) {
        self.type = type
        self.sequence = sequence
        self.trackID = trackID
        self.bounds = bounds
        self.corners = corners
        self.stringValue = stringValue
        self.payload = payload
        self.quality = quality
        self.textEncoding = textEncoding
        self.isGS1 = isGS1
        self.faceID = faceID
        self.rollAngle = rollAngle
        self.yawAngle = yawAngle
        self.view = view
    }

    public var hasRollAngle: Bool { rollAngle != nil }
    public var hasYawAngle: Bool { yawAngle != nil }
}

/// A symbol's place in a structured-append sequence: the symbols of one message, printed apart (QR holds up to
/// 16), that a reader joins in order.
public struct StructuredAppend: Sendable, Hashable {
    /// This part's 0-based place in the sequence; nil for the whole message (every part read and joined).
    public var index: Int?
    /// The number of symbols in the sequence.
    public var size: Int
    /// What the parts of one sequence share (QR: the parity of the whole message), as zxing-cpp gives it; empty
    /// when the reader gives none.
    public var id: String

    public init(index: Int?, size: Int, id: String = "") {
        self.index = index
        self.size = size
        self.id = id
    }
}

/// The character set a code's text was decoded with, and what chose it.
public struct TextEncoding: Sendable, Hashable {
    /// What chose the character set.
    public enum Source: String, Sendable, Hashable {
        /// An ECI designator in the symbol (e.g. ECI 22: windows-1251).
        case eci
        /// QR Kanji mode (Shift JIS double-byte characters), with no ECI.
        case kanji
        /// The symbology defines it (1-D codes: ASCII; Code 128's FNC4 characters: ISO-8859-1).
        case symbology
        /// No declaration: guessed from the bytes as zxing-cpp does (valid UTF-8, else Shift JIS when the
        /// bytes are valid Shift JIS and look like Japanese text, else ISO-8859-1).
        case guess
    }
    /// IANA name of the character set ("UTF-8", "ISO-8859-1", "Shift_JIS", "windows-1251", "US-ASCII", …);
    /// when runs of the payload use different sets, their names in payload order joined by ",".
    public var charset: String
    public var source: Source
    public init(charset: String, source: Source) {
        self.charset = charset
        self.source = source
    }
}

/// An object's geometry re-expressed in view coordinates (points), as
/// `AVCaptureVideoPreviewLayer.transformedMetadataObject(for:)` gives it.
public struct ViewMetadata: Sendable, Hashable {
    public var bounds: ViewRect
    public var corners: [ViewPoint]
    /// Degrees in the view's frame; nil when unknown.
    public var rollAngle: Double?
    public var yawAngle: Double?
    public init(bounds: ViewRect, corners: [ViewPoint], rollAngle: Double? = nil, yawAngle: Double? = nil) {
        self.bounds = bounds
        self.corners = corners
        self.rollAngle = rollAngle
        self.yawAngle = yawAngle
    }
}
