public import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the `Models/` directory: `--models DIR`, then `$SCAND_MODELS`, then the installed place relative
/// to the executable (`<prefix>/bin/scand` → `<prefix>/share/scand/Models`, as scripts/install lays it out),
/// then a `Models` folder next to the executable or up to three levels above it (a SwiftPM build folder
/// inside the repository), then `/usr/local/share/scand/Models` and `/usr/share/scand/Models`.
public enum ModelLocator {
    public static func directory(_ configuration: ModelConfiguration) throws -> String {
        if let dir = configuration.directory {
            guard isDirectory(dir) else {
                throw ScanError.model(file: dir, reason: "--models directory does not exist")
            }
            return dir
        }
        var candidates: [String] = []
        if let env = getenv("SCAND_MODELS") { candidates.append(String(cString: env)) }
        var dir = executableDirectory()
        candidates.append(parent(dir) + "/share/scand/Models")
        for _ in 0..<4 {
            candidates.append(dir + "/Models")
            dir = parent(dir)
        }
        candidates += ["/usr/local/share/scand/Models", "/usr/share/scand/Models"]
        if let found = candidates.first(where: isDirectory) { return found }
        throw ScanError.model(
            file: "Models",
            reason: "no Models directory found (looked in \(candidates.joined(separator: ", "))); pass --models DIR")
    }

    /// The path of `name` inside the models directory; throws naming the file when it is missing.
    public static func file(_ name: String, in configuration: ModelConfiguration) throws -> String {
        let path = try directory(configuration) + "/" + name
        guard access(path, R_OK) == 0 else { throw ScanError.model(file: path, reason: "missing or unreadable") }
        return path
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    public static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return "." }
        let path = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return parent(path)
    }
}
