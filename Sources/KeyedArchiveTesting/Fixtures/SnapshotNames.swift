import Foundation

/// The snapshot files named after their tests in this process, and the call that named each
/// first: two calls in one test without names would share one file, each comparing with what
/// the other recorded, so the second is refused with a message asking for names.
enum SnapshotNames {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var claims: [String: String] = [:]

    /// Claims `location` for the call at `callSite`; the failure text when another call site
    /// holds it already.
    static func claim(_ location: ArchiveFixtureLocation, by callSite: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard let holder = claims[location.path] else {
            claims[location.path] = callSite
            return nil
        }
        guard holder != callSite else { return nil }
        return "the snapshot \(location.path) is named after this test by two calls (\(holder) and \(callSite)): give each its own name with named:"
    }
}
