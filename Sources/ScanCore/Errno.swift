#if canImport(Glibc)
    import Glibc
#endif

/// The text for an `errno` value, with its symbolic name when it is one scand meets often:
/// `Device or resource busy (EBUSY)`. The one errno formatter of the package.
public func errnoText(_ code: Int32) -> String {
    let name: String
    switch code {
    case EBUSY: name = "EBUSY"
    case ENODEV: name = "ENODEV"
    case ENOENT: name = "ENOENT"
    case EINVAL: name = "EINVAL"
    case EIO: name = "EIO"
    case EACCES: name = "EACCES"
    case EPERM: name = "EPERM"
    case ENXIO: name = "ENXIO"
    case ENOMEM: name = "ENOMEM"
    case ENOSPC: name = "ENOSPC"
    default: name = "errno \(code)"
    }
    return "\(String(cString: strerror(code))) (\(name))"
}

/// The text for the calling thread's current `errno` (read it right after the failing call).
public func errnoText() -> String { errnoText(errno) }
