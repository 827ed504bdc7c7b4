#if canImport(Glibc)
    import Glibc
#endif

extension NetworkCameraConfiguration {
    /// The environment variable OpenCV's FFmpeg capture reads its options from (`key;value|key;value`), at each
    /// open of a stream.
    static let ffmpegOptionsVariable = "OPENCV_FFMPEG_CAPTURE_OPTIONS"

    /// The FFmpeg options every network camera is opened with: the TLS server's certificate checked (against
    /// `caFile`, else the system's CAs) for `https://` and `rtsps://`, and RTSP over TCP (OpenCV's own default,
    /// which it drops once the variable is set).
    public static func ffmpegOptions(caFile: String?) -> String {
        "rtsp_transport;tcp|tls_verify;1" + (caFile.map { "|ca_file;" + $0 } ?? "")
    }

    /// Why `path` cannot serve as the network cameras' CA file (`--camera-ca`), or nil.
    public static func problem(withCAFile path: String) -> String? {
        if path.contains(";") || path.contains("|") {
            return "camera CA file \(path): the path may not contain ';' or '|' (FFmpeg's option separators)"
        }
        guard access(path, R_OK) == 0 else { return "camera CA file \(path): cannot be read" }
        return nil
    }

    /// Sets ``ffmpegOptions(caFile:)`` for every network camera of the process, those a reload adds included.
    /// Call before any other thread exists (the variable is read at each open). A value already in the
    /// environment is kept: whoever set it decides the checks.
    public static func prepareTLS(caFile: String?) {
        setenv(ffmpegOptionsVariable, ffmpegOptions(caFile: caFile), 0)
    }
}
