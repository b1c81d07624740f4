import Foundation
import KeyedArchive
import Synchronization

/// Carries the decode's result from the thread that ran it to the one that waits for it.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)  // Mutex
final class DecodeOutcome<T>: Sendable {
    let result = Mutex<Result<T, ArchiveError>?>(nil)
}

/// Decodes `T` on a thread of its own with `stackSize` bytes of stack, for data nested deeper
/// than the calling thread allows.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
func unarchiveOnBigStack<T: ArchiveObjectDecodable>(_ type: T.Type, from bytes: [UInt8], registry: ArchiveRegistry,
                                                    maximumDepth: Int, stackSize: Int) throws(ArchiveError) -> T {
    var options = ArchiveReadingOptions()
    options.maximumDepth = maximumDepth
    let reading = options
    let outcome = DecodeOutcome<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        // Made inside the lock, from Sendable values only: the graph is the thread's alone to hand over.
        outcome.result.withLock { result in
            result = Result { () throws(ArchiveError) in try KeyedUnarchiver.unarchive(type, from: bytes, registry: registry, options: reading) }
        }
        done.signal()
    }
    thread.stackSize = stackSize   // in release about 1.3 KiB a level of models; in debug about 5 KiB
    thread.start()
    done.wait()
    guard let result = outcome.result.withLock({ $0.take() }) else { throw ArchiveError(.invalidState, "the thread ended without a result") }
    return try result.get()
}
