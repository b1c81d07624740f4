import Foundation

/// The stack a deep test's own work runs on: Linux's default for a main thread. Swift Testing
/// runs tests on threads of 8 MiB here but 512 KiB on Darwin, where a recursive writer refuses
/// a few hundred levels in a debug build; a test that needs the depth chooses its stack.
let deepTestStackSize = 8 << 20

/// Runs `body` on a new thread with ``deepTestStackSize`` bytes of stack, and waits for it.
func onBigStack<R: Sendable>(_ body: @escaping @Sendable () -> R) -> R {
    let slot = BigStackResult<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        slot.value = body()
        done.signal()
    }
    thread.stackSize = deepTestStackSize
    thread.start()
    done.wait()
    guard let value = slot.value else { preconditionFailure("the thread returned nothing") }
    return value
}

/// Carries the thread's result out; written by the thread before it signals, read after the wait.
private final class BigStackResult<R>: @unchecked Sendable {
    var value: R?
}
