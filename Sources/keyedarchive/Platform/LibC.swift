#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Every C library call the tool makes, and the only file of the tool that imports the C
/// library. The tool reads and writes files through the C library directly, not Foundation:
/// Foundation alone would add 7 MB to every run's resident memory (Docs/Development/PerformanceLog.md,
/// "The command-line tool (issue 36)").
/// The types the platforms spell differently (`mode_t` is 16 bits on Darwin and 32 on Linux,
/// `nlink_t` 16 and 64) stop here; the rest of the tool sees Swift integers.
enum LibC {
    static let standardInput: Int32 = STDIN_FILENO
    static let standardOutput: Int32 = STDOUT_FILENO
    static let standardError: Int32 = STDERR_FILENO

    /// The calling thread's `errno`.
    static var lastError: Int32 { errno }
    static let interrupted: Int32 = EINTR
    static let noSuchFile: Int32 = ENOENT

    /// What `stat` says of a file, in the terms the tool uses.
    struct FileStatus {
        enum Kind { case regular, directory, symbolicLink, other }
        var kind: Kind
        var size: Int
        var linkCount: Int
        var ownerID: UInt32
        /// The permission bits, setuid, setgid and sticky included (`st_mode & 07777`).
        var permissions: UInt32
    }

    /// `stat` (following a symbolic link) of `path`.
    static func status(ofPath path: String) -> FileStatus? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileStatus(status)
    }

    /// `lstat` of `path`: a symbolic link itself. Nil with ``lastError`` set when it fails.
    static func linkStatus(ofPath path: String) -> FileStatus? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return FileStatus(status)
    }

    /// `fstat` of an open file.
    static func status(ofDescriptor descriptor: Int32) -> FileStatus? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return FileStatus(status)
    }

    static func openForReading(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_CLOEXEC)
    }

    /// `path` created or truncated, for writing (0666 less the umask for a new file).
    static func openForWriting(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    }

    /// `read`: the count read, 0 at the end, or a negative number with ``lastError`` set.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
#if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
#elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
#elseif canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
#endif
    }

    /// `write`: the count written, or a negative number with ``lastError`` set.
    static func write(_ descriptor: Int32, from buffer: UnsafeRawPointer, count: Int) -> Int {
#if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
#elseif canImport(Musl)
        Musl.write(descriptor, buffer, count)
#elseif canImport(Darwin)
        Darwin.write(descriptor, buffer, count)
#endif
    }

    /// `close`: 0, or the failure's `errno`.
    @discardableResult
    static func close(_ descriptor: Int32) -> Int32 {
#if canImport(Glibc)
        Glibc.close(descriptor) == 0 ? 0 : errno
#elseif canImport(Musl)
        Musl.close(descriptor) == 0 ? 0 : errno
#elseif canImport(Darwin)
        Darwin.close(descriptor) == 0 ? 0 : errno
#endif
    }

    /// `fsync`: 0, or the failure's `errno`. A file that cannot be synced (a pipe, a device such
    /// as `/dev/null`: `EINVAL` on Linux, `ENOTSUP` on Darwin) is not a failure.
    static func sync(_ descriptor: Int32) -> Int32 {
        guard fsync(descriptor) != 0 else { return 0 }
        let failure = errno
        return failure == EINVAL || failure == ENOTSUP ? 0 : failure
    }

    /// `mkstemp`: a new file made from `template` (its trailing `XXXXXX` replaced), open for
    /// writing, and its name; nil when none could be made.
    static func makeUniqueFile(template: String) -> (descriptor: Int32, path: String)? {
        var name = Array(template.utf8CString)
        let descriptor = name.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard descriptor >= 0 else { return nil }
        let path = name.withUnsafeBufferPointer { buffer in
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return (descriptor, path)
    }

    /// `fchmod`.
    static func setPermissions(_ descriptor: Int32, _ permissions: UInt32) {
        _ = fchmod(descriptor, mode_t(truncatingIfNeeded: permissions))
    }

    /// `rename`: 0, or the failure's `errno`.
    static func rename(_ source: String, to destination: String) -> Int32 {
#if canImport(Glibc)
        Glibc.rename(source, destination) == 0 ? 0 : errno
#elseif canImport(Musl)
        Musl.rename(source, destination) == 0 ? 0 : errno
#elseif canImport(Darwin)
        Darwin.rename(source, destination) == 0 ? 0 : errno
#endif
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// `realpath`: `path` with every symbolic link resolved.
    static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The process's file-creation mask (`umask`, read and put back).
    static func fileCreationMask() -> UInt32 {
        let mask = umask(0)
        umask(mask)
        return UInt32(mask)
    }

    static func effectiveUserID() -> UInt32 {
        UInt32(geteuid())
    }

    /// `access(path, W_OK)`.
    static func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0
    }

    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    static func exit(_ status: Int32) -> Never {
#if canImport(Glibc)
        Glibc.exit(status)
#elseif canImport(Musl)
        Musl.exit(status)
#elseif canImport(Darwin)
        Darwin.exit(status)
#endif
    }

    /// `strerror`.
    static func describe(_ failure: Int32) -> String {
        guard let text = strerror(failure) else { return "error \(failure)" }
        return String(cString: text)
    }
}

extension LibC.FileStatus {
    fileprivate init(_ status: stat) {
        let type = status.st_mode & S_IFMT
        switch type {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int(truncatingIfNeeded: status.st_size)
        linkCount = Int(truncatingIfNeeded: status.st_nlink)
        ownerID = UInt32(truncatingIfNeeded: status.st_uid)
        permissions = UInt32(truncatingIfNeeded: status.st_mode & 0o7777)
    }
}
