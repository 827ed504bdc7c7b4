#if canImport(Glibc)
    import Glibc
#endif

/// Readings of this process from `/proc/self/status` (proc(5)). The one parser of that file in the package:
/// the start-up address-space check (`VmSize`) and the benchmark's memory figures (`VmRSS`, `VmHWM`) use it.
public enum ProcessStatus {
    /// The value of a `kB` field of /proc/self/status (`VmSize`, `VmRSS`, `VmHWM`, …; the name without its
    /// colon), in bytes. Nil when /proc is not mounted or the field is missing.
    public static func bytes(_ field: String) -> Int? {
        guard let f = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(f) }
        let prefix = field + ":"
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), f) != nil {
            let s = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            guard s.hasPrefix(prefix) else { continue }
            return Int(s.dropFirst(prefix.count).filter(\.isNumber)).map { $0 * 1024 }
        }
        return nil
    }
}
