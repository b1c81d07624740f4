import PropertyList

/// A field present in an archive that no `init(from:)` read: with
/// ``ArchiveReadingOptions/reportsUnreadFields``, ``KeyedUnarchiver/unreadFields`` lists them,
/// so a test (or a service's log) notices when an app starts writing a field the model ignores.
public struct ArchiveUnreadField: Hashable, Sendable, CustomStringConvertible {
    /// Where the field is: the object's key path and the field's own key
    /// (`root.airplanes[1].wingspan`).
    public let keyPath: ArchiveKeyPath
    /// The field's key as the model would ask for it (unescaped).
    public let key: String
    /// The archived `$classes` of the object holding it, the class first.
    public let classChain: [String]
    /// The object's UID.
    public let uid: PropertyListUID

    /// The archived class of the object holding the field.
    public var className: String { classChain.first ?? "" }

    /// `root.airplanes[1].wingspan (Glider, object #7)`.
    public var description: String {
        "\(keyPath) (\(className.excerptForMessage(64)), object #\(uid.value))"
    }
}

/// What the decoding session records when unread fields are asked for: each object handed to
/// an `init(from:)`, with its stored keys, and every key a decoder looked up. Reads of the
/// same object through two references add up.
final class UnreadFieldTracker {
    private struct Entry {
        /// The object's place, a node of the session's path tree: a path built for every object
        /// would cost time and memory quadratic in the depth of the graph.
        let pathNode: Int32
        let classChain: [String]
        let storedKeys: [String]
        var read: Set<String> = []
    }

    private var entries: [Int: Entry] = [:]
    /// Objects in the order first decoded, for a stable report.
    private var order: [Int] = []

    func begin(uid: Int, pathNode: Int32, classChain: [String], storedKeys: [String]) {
        guard entries[uid] == nil else { return }
        entries[uid] = Entry(pathNode: pathNode, classChain: classChain, storedKeys: storedKeys)
        order.append(uid)
    }

    func read(uid: Int, storedKey: String) {
        entries[uid]?.read.insert(storedKey)
    }

    /// Every stored user key of every decoded object that was never looked up; `path` makes
    /// an object's key path from its node.
    func report(path: (Int32) -> ArchiveKeyPath) -> [ArchiveUnreadField] {
        var result: [ArchiveUnreadField] = []
        for uid in order {
            guard let entry = entries[uid] else { continue }
            var objectPath: ArchiveKeyPath?
            for storedKey in entry.storedKeys where !entry.read.contains(storedKey) {
                // Reserved keys ($class) are the format's, not the model's.
                guard let key = ArchiveKeys.unescape(storedKey) else { continue }
                let base = objectPath ?? path(entry.pathNode)
                objectPath = base
                result.append(ArchiveUnreadField(keyPath: base.appending(key: key), key: key, classChain: entry.classChain,
                                                 uid: PropertyListUID(UInt64(uid))))
            }
        }
        return result
    }
}

extension KeyedArchiveDecoder {
    /// Records that the model looked up `key` (a user key), when unread fields are tracked; a
    /// nil check otherwise.
    @inline(__always)
    func noteRead(_ key: String) {
        if let tracker = session.unreadFields { tracker.read(uid: objectUID, storedKey: ArchiveKeys.escape(key)) }
    }

    /// The same for a key as stored (`$0`, or `rawValue(forStoredKey:)`).
    @inline(__always)
    func noteRead(storedKey: String) {
        if let tracker = session.unreadFields { tracker.read(uid: objectUID, storedKey: storedKey) }
    }
}

extension KeyedUnarchiver {
    /// The fields present in the objects decoded so far that no `init(from:)` read, in the
    /// order the objects were decoded; empty unless the unarchiver was made with
    /// ``ArchiveReadingOptions/reportsUnreadFields``. Only objects decoded by a registered
    /// model's `init(from:)` are counted (Foundation collections and values are read whole).
    public var unreadFields: [ArchiveUnreadField] {
        session.unreadFields?.report(path: session.keyPath(ofNode:)) ?? []
    }
}
