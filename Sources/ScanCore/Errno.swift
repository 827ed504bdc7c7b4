public import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A failed C call's error is swift-system's `Errno`, read once right after the call (``Errno/last``) and
/// kept as that type while code decides on it (`e == .resourceBusy`); it becomes text only in a message.
extension Errno {
    /// The calling thread's `errno`: read it right after the failing call, before anything else can set it.
    public static var last: Errno { Errno(rawValue: Glibc.errno) }

    /// The text scand prints for it: `strerror(3)`'s (``description``), with the symbolic name of the errors
    /// scand meets often: `Device or resource busy (EBUSY)`. The one errno formatter of the package.
    public var text: String {
        let name: String
        switch self {
        case .resourceBusy: name = "EBUSY"
        case .operationNotSupportedByDevice: name = "ENODEV"
        case .noSuchFileOrDirectory: name = "ENOENT"
        case .invalidArgument: name = "EINVAL"
        case .ioError: name = "EIO"
        case .permissionDenied: name = "EACCES"
        case .notPermitted: name = "EPERM"
        case .noSuchAddressOrDevice: name = "ENXIO"
        case .noMemory: name = "ENOMEM"
        case .noSpace: name = "ENOSPC"
        default: name = "errno \(rawValue)"
        }
        return "\(description) (\(name))"
    }
}
