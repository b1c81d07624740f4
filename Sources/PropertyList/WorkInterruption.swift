/// Stops long work on request: when the task running it is cancelled, or when its time budget
/// is spent. Readers and writers ask it every so often — after a bounded amount of work, never
/// in their innermost loops — and throw a typed error (`cancelled`, `timeLimitExceeded`) where
/// it says to stop. Made once per operation, so that one budget covers all of it.
///
/// A class, so that what holds it holds one pointer: as a struct, its `ContinuousClock.Instant`
/// (a type whose layout is the standard library's to change) gave the in-place validator a
/// layout known only at run time, and every access to its fields went through metadata
/// (+0.6 % instructions in a fleet decode).
package final class WorkInterruption: Sendable {
    /// When the budget is spent; nil for no budget.
    package let deadline: ContinuousClock.Instant?
    /// The budget, for messages.
    package let budget: Duration?
    package let respondsToCancellation: Bool

    /// Why work stops.
    package enum Stop: Sendable {
        case cancelled
        case timeLimitExceeded(Duration)

        /// The property-list error code of the stop.
        package var code: PropertyListError.Code {
            switch self {
            case .cancelled: return .cancelled
            case .timeLimitExceeded: return .timeLimitExceeded
            }
        }
    }

    /// Work that is never interrupted.
    package static let never = WorkInterruption(maximumDuration: nil, respondsToCancellation: false)

    /// A budget of `maximumDuration` from now, and cancellation if asked for.
    package init(maximumDuration: Duration?, respondsToCancellation: Bool) {
        budget = maximumDuration
        deadline = maximumDuration.map { ContinuousClock.now.advanced(by: $0) }
        self.respondsToCancellation = respondsToCancellation
    }

    /// The interruption of a reader with `options`: its budget starts now.
    package convenience init(_ options: PropertyListReadingOptions) {
        self.init(maximumDuration: options.maximumDuration, respondsToCancellation: options.respondsToCancellation)
    }

    /// Whether it can ever stop anything (otherwise the checks can be skipped altogether).
    package var isActive: Bool { deadline != nil || respondsToCancellation }

    /// What stops the work now, if anything. Out of line: it runs once per interval.
    @inline(never)
    package func stop() -> Stop? {
        if respondsToCancellation, Task.isCancelled { return .cancelled }
        if let deadline, let budget, ContinuousClock.now >= deadline { return .timeLimitExceeded(budget) }
        return nil
    }

    /// How much work (objects, elements, references) passes between two checks: about a
    /// tenth of a millisecond of decoding, so a check costs nothing measurable and a stop comes
    /// well within a millisecond of the request.
    package static let interval = 1024

    /// The property-list error for `stop`, found `at` a place in the input.
    package static func error(_ stop: Stop, at location: PropertyListError.Location = .none) -> PropertyListError {
        switch stop {
        case .cancelled:
            return PropertyListError(.cancelled, "the task was cancelled", at: location)
        case .timeLimitExceeded(let budget):
            return PropertyListError(.timeLimitExceeded, "the work took longer than its budget of \(budget) (maximumDuration)", at: location)
        }
    }
}
