import Foundation

/// A value behind a lock, for state that tests share across threads. `Synchronization.Mutex`
/// would do, but it needs macOS 15 / iOS 18 and the package supports macOS 13 / iOS 16
/// (`.ci/darwin-check` holds the tests to that too).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
