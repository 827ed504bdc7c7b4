internal import CScanOpenCV
internal import CScanZBar

/// The versions of the C/C++ libraries scand reads with, for `scand --version`: zbar's from the library
/// loaded at run time (`zbar_version`), OpenCV's and zxing-cpp's from the headers scand was built against.
public enum LibraryVersions {
    public static var zbar: String {
        var major: UInt32 = 0
        var minor: UInt32 = 0
        var patch: UInt32 = 0
        _ = zbar_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }

    public static var openCV: String { String(cString: scv_opencv_version()) }

    public static var zxing: String { ZXingReader.version }

    /// `zbar 0.23.92, OpenCV 4.6.0, zxing-cpp 1.4.0`.
    public static var summary: String { "zbar \(zbar), OpenCV \(openCV), zxing-cpp \(zxing)" }
}
