/// How far down the current thread's stack a recursion may go before it must stop and throw.
///
/// A depth limit alone cannot keep a recursive decoder from crashing: a level costs a few KiB in
/// an optimized build and several times that in a debug build, while threads are given anything
/// from 8 MiB (a main thread) down to 512 KiB (Apple's secondary threads, many thread pools) or
/// less. So the decoders and encoders look the stack's bounds up once per decode or encode and,
/// before each level, compare the stack position with a floor that keeps ``headroom`` bytes
/// above the guard page for the deepest frames that follow the last check (a model's own
/// `init(from:)`, the leaf decoders, the error that reports the stop).
///
/// Where the bounds cannot be had, the floor is put ``fallbackStackSize`` below the position at
/// the look-up: the recursion then stops as if the thread had that little stack left.
@_spi(KeyedArchiveInternals) public struct ThreadStackLimit: Sendable {
    /// Bytes kept free below the floor. Measured (Docs/Security.md): one nesting level of a
    /// model decode takes about 1–2 KiB optimized and up to 25 KiB in a debug build, and the
    /// error path a few KiB more; 64 KiB covers two debug levels beyond the last check.
    public static let headroom = 64 << 10
    /// The stack assumed left when the thread's bounds cannot be read.
    public static let fallbackStackSize = 256 << 10

    /// The lowest stack address a check accepts (stacks grow down on every platform we build for).
    @usableFromInline let floor: UInt
    /// The thread's stack size as the system reported it; nil when it could not be read.
    public let threadStackSize: Int?

    /// The limit for the calling thread. Costs a system call or two (on a Linux main thread a
    /// read of the process's memory map, so that case is remembered): call it once per decode
    /// or encode, not per level.
    public static func current() -> ThreadStackLimit {
        let position = currentStackPosition()
        if let (low, size) = LibC.currentThreadStackBounds() {
            let (high, highOverflow) = low.addingReportingOverflow(UInt(size))
            // A local outside the thread's stack means locals do not live there (AddressSanitizer's
            // fake stack for use-after-return checks puts them on the heap): positions say nothing
            // then, and no check can be made.
            guard low < position, highOverflow || position <= high else { return .unlimited }
            let (floor, overflow) = low.addingReportingOverflow(UInt(headroom))
            return ThreadStackLimit(floor: overflow ? position : floor, threadStackSize: size)
        }
        let room = UInt(fallbackStackSize - headroom)
        return ThreadStackLimit(floor: position > room ? position - room : 0, threadStackSize: nil)
    }

    /// A limit at a given distance below the current position (for tests that need the stop to
    /// come early without a small thread).
    public static func bytesFromHere(_ bytes: Int) -> ThreadStackLimit {
        let position = currentStackPosition()
        let room = UInt(max(0, bytes))
        return ThreadStackLimit(floor: position > room ? position - room : 0, threadStackSize: nil)
    }

    /// No limit at all: every check passes.
    public static let unlimited = ThreadStackLimit(floor: 0, threadStackSize: nil)

    @usableFromInline
    init(floor: UInt, threadStackSize: Int?) {
        self.floor = floor
        self.threadStackSize = threadStackSize
    }

    /// Whether the caller may descend one more level.
    @inlinable @inline(__always)
    public func hasRoom() -> Bool {
        ThreadStackLimit.currentStackPosition() > floor
    }

    /// Bytes between the current stack position and the floor (negative past it): for messages.
    public func bytesLeft() -> Int {
        let position = ThreadStackLimit.currentStackPosition()
        if position >= floor { return Int(clamping: position - floor) }
        return -Int(clamping: floor - position)
    }

    /// The stop of a `Codable` coder before the stack runs out, as the underlying error of the
    /// coder's `DecodingError` or `EncodingError` (which carry the coding path).
    @inline(never)
    static func exhausted(depth: Int, type: Any.Type) -> PropertyListError {
        PropertyListError(.stackExhausted, "\(type) nests \(depth) values deep, too deep for this thread's stack; decode or encode it on a thread with a bigger stack")
    }

    /// Nesting at which recursions that carry only a depth (the writers, the JSON renderer)
    /// start checking the stack. Real data stays above it (a keyed archive's property list nests
    /// a few levels: its objects are a flat table), so those checks, each a fresh look-up of the
    /// thread's bounds, cost nothing where data is ordinary. It was 64 until the XML writer's
    /// level was measured at 3.3 KiB in a debug build: 64 unchecked levels took 211 KiB, most of
    /// a 256 KiB thread, and overflowed one under AddressSanitizer.
    public static let uncheckedDepth = 16

    /// Whether a recursion at `depth` may descend one more level: always below
    /// ``uncheckedDepth``, otherwise if the thread's stack has room.
    @inline(__always)
    public static func hasRoom(atDepth depth: Int) -> Bool {
        depth < uncheckedDepth || current().hasRoom()
    }

    /// Stack that releasing one level of a nested ``PropertyListValue`` takes, with a margin:
    /// measured at about 220 bytes in a debug build (the release is the runtime's own code).
    /// Comparing and hashing values keep stacks of their own and need none.
    public static let valueReleaseBytesPerLevel = 256

    /// Whether the calling thread could release a value `depth` containers deep. Readers and
    /// tree decoders ask past the default `maximumDepth` (512, which any thread of 256 KiB or
    /// more releases): a caller who raises the limit gets `stackExhausted` rather than a value
    /// whose release would overflow the stack.
    @inline(__always)
    public static func canHoldValue(depth: Int) -> Bool {
        depth <= alwaysReleasableDepth || canReleaseDeepValue(depth: depth)
    }

    /// The default `maximumDepth` of the readers, as a literal: the check above runs for every
    /// container a reader opens.
    static let alwaysReleasableDepth = 512

    @inline(never)
    static func canReleaseDeepValue(depth: Int) -> Bool {
        let (reserve, overflow) = depth.multipliedReportingOverflow(by: valueReleaseBytesPerLevel)
        return !overflow && current().bytesLeft() > reserve
    }

    /// The address of a local of the calling frame: where the stack is now, give or take a frame.
    @inlinable @inline(__always)
    public static func currentStackPosition() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }
}

extension PropertyListError {
    /// The check of a recursive writer or walker before it descends into a container at
    /// `depth`: the caller's limit first, then (past the depth real data reaches) the stack.
    @inline(__always)
    package static func checkNesting(_ depth: Int, maximumDepth: Int) throws(PropertyListError) {
        guard depth < maximumDepth else { throw depthLimitExceeded(maximumDepth) }
        guard ThreadStackLimit.hasRoom(atDepth: depth) else { throw stackExhausted(depth: depth) }
    }

    @inline(never)
    static func depthLimitExceeded(_ maximumDepth: Int) -> PropertyListError {
        PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
    }

    /// The refusal of a value too deep for the thread to release (see ``ThreadStackLimit/canHoldValue(depth:)``).
    @inline(never)
    package static func valueTooDeepForStack(_ depth: Int, at location: Location = .none) -> PropertyListError {
        PropertyListError(.stackExhausted, "containers nest \(depth) deep, more than this thread's stack could release (\(ThreadStackLimit.valueReleaseBytesPerLevel) bytes a level); read it on a thread with a bigger stack, or keep maximumDepth lower", at: location)
    }

    @inline(never)
    static func stackExhausted(depth: Int) -> PropertyListError {
        PropertyListError(.stackExhausted, "containers nest \(depth) deep, too deep for this thread's stack; write it on a thread with a bigger stack")
    }
}
