/// How codes are read. Defaults read everything zbar can, including inverted codes.
public struct BarcodeConfiguration: Sendable, Hashable {
    /// Enabled code types (`metadataObjectTypes`, codes only).
    public var types: Set<MetadataObjectType>
    /// Try the inverted luma when nothing decodes (light-on-dark, dark-mode phone screens).
    public var tryInverted: Bool
    /// zbar scan density in pixels between scan lines (1 = every line; higher is faster, weaker on small 1-D codes).
    public var scanDensity: Int
    /// Minimum symbol length for Interleaved 2 of 5 (fragments of longer codes are shorter).
    public var minimumI25Length: Int
    /// Extra passes (downscaled, upscaled, thresholded) on frames where nothing decodes.
    public var extraPasses: Bool

    public init(types: Set<MetadataObjectType> = Set(MetadataObjectType.allCases.filter(\.isMachineReadableCode)),
                tryInverted: Bool = true, scanDensity: Int = 1, minimumI25Length: Int = 6, extraPasses: Bool = true) {
        self.types = types; self.tryInverted = tryInverted; self.scanDensity = scanDensity
        self.minimumI25Length = minimumI25Length; self.extraPasses = extraPasses
    }
}

/// Where scand looks for its model files.
public struct ModelConfiguration: Sendable, Hashable {
    /// An explicit directory (`--models`), tried first.
    public var directory: String?
    public init(directory: String? = nil) { self.directory = directory }
}
