#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Every C library call the codec makes, and the only file of the module that imports the C
/// library: each platform's branch is written against that platform's own declarations (glibc's
/// and Musl's here, Darwin's in the Apple SDKs — `.ci/darwin-check` type-checks it against them),
/// and the rest of the module is plain Swift.
enum LibC {
    /// `memcmp`: whether the `count` bytes at `left` and `right` are equal.
    @inline(__always)
    static func bytesEqual(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(left, right, count) == 0
    }

    /// `memchr`: the first `byte` in the `count` bytes at `start`, or nil.
    @inline(__always)
    static func firstByte(_ byte: UInt8, in start: UnsafeRawPointer, count: Int) -> UnsafeRawPointer? {
        guard let found = memchr(start, Int32(byte), count) else { return nil }
        return UnsafeRawPointer(found)
    }

    /// `realloc`: `memory` (nil for a new block) resized to `byteCount` bytes, or nil when
    /// memory runs out (the block is then unchanged).
    @inline(__always)
    static func reallocate(_ memory: UnsafeMutableRawPointer?, byteCount: Int) -> UnsafeMutableRawPointer? {
        guard let resized = realloc(memory, byteCount) else { return nil }
        return resized
    }

    /// `free`, for a block ``reallocate(_:byteCount:)`` returned.
    @inline(__always)
    static func release(_ memory: UnsafeMutableRawPointer) {
        free(memory)
    }

    /// `log10`, the C math library's.
    @inline(__always)
    static func log10(_ value: Double) -> Double {
        #if canImport(Glibc)
        Glibc.log10(value)
        #elseif canImport(Musl)
        Musl.log10(value)
        #elseif canImport(Darwin)
        Darwin.log10(value)
        #endif
    }

    /// `vsnprintf(buffer, capacity, "%.17g", value)` in the C locale's digits: the count of
    /// characters the full text takes (which may exceed `capacity - 1`), or a negative number.
    static func printShortestRoundTrip(_ value: Double, to buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        Int(withVaList([value]) { vsnprintf(buffer, capacity, "%.17g", $0) })
    }

    /// The lowest address and the size of the calling thread's stack, or nil when the system
    /// does not say.
    static func currentThreadStackBounds() -> (low: UInt, size: Int)? {
#if canImport(Darwin)
        // Darwin gives the top of the stack (its highest address) and the size directly;
        // `pthread_t` is a non-optional pointer there.
        let thread = pthread_self()
        let top = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = Int(pthread_get_stacksize_np(thread))
        guard size > 0, UInt(size) < top else { return nil }
        return (top - UInt(size), size)
#elseif canImport(Glibc) || canImport(Musl)
        // glibc answers a main thread's query by reading /proc/self/maps; that thread's stack
        // does not move, so its answer is kept.
        if LinuxStack.isMainThread() { return LinuxStack.mainThreadBounds }
        return LinuxStack.queryBounds()
#else
        return nil
#endif
    }

#if !canImport(Darwin) && (canImport(Glibc) || canImport(Musl))
    private enum LinuxStack {
        // `pthread_getattr_np` and `gettid` are GNU extensions the Swift module of the C library
        // does not import; they are looked up by name once.
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> CInt
        typealias GetThreadID = @convention(c) () -> pid_t

        static let getAttributes: GetAttributes? = symbol("pthread_getattr_np", as: GetAttributes.self)
        static let getThreadID: GetThreadID? = symbol("gettid", as: GetThreadID.self)
        // Initialized on first use, which happens on the main thread (see the caller).
        static let mainThreadBounds: (low: UInt, size: Int)? = queryBounds()

        static func symbol<F>(_ name: String, as type: F.Type) -> F? {
            guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
            return unsafeBitCast(address, to: type)
        }

        static func isMainThread() -> Bool {
            guard let getThreadID else { return false }
            return getpid() == getThreadID()
        }

        static func queryBounds() -> (low: UInt, size: Int)? {
            guard let getAttributes else { return nil }
            var attributes = pthread_attr_t()
            guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
            defer { pthread_attr_destroy(&attributes) }
            var address: UnsafeMutableRawPointer?
            var size = 0
            guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address, size > 0 else { return nil }
            return (UInt(bitPattern: address), size)
        }
    }
#endif
}
