/// Remembers which values one decode read from one archived object, so that encoding them again
/// stores one object again: sharing kept for value types, which have no identity of their own.
///
/// An `NSArray` that two objects of an archive refer to decodes to one `[T]` handed to both, but
/// a Swift array is a value: encoded again, each holder's copy would be an object of its own,
/// and the archive would no longer say that the two hold the same array. Give the unarchiver
/// and then the archiver a table, and every value still as it was decoded (the same storage,
/// not modified since) is written once, as the archive had it:
///
/// ```swift
/// let identities = ArchiveIdentityTable()
/// let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
/// unarchiver.identities = identities
/// let document = try unarchiver.decode(Document.self)
/// let archiver = KeyedArchiver(registry: registry)
/// archiver.identities = identities
/// try archiver.encode(document)
/// ```
///
/// What it keeps: every collection the unarchiver decodes (arrays, dictionaries, sets, ordered
/// sets, ``ArchiveValue`` collections) and every `NSDate`, `NSURL`, `NSIndexPath`, `NSIndexSet`
/// or `NSValue` object, by the Swift type it was decoded as and the bits of the value (for a
/// collection, its storage), with the object it came from. A value that keeps the object it
/// was decoded from (``ArchiveDecimalNumber``, ``ArchiveAttributedString``, ``ArchiveTimeZone``,
/// … and those in an ``ArchiveValue``) is noted by that object, shared again as long as no
/// property changed. A value that was modified has other
/// storage and is written as a new object. Values whose bits do not tell their objects apart —
/// two equal dates, which Swift stores alike — are not shared unless they all came from one
/// object (each empty collection gets storage of its own while a table is given, so empty ones
/// are told apart). Strings, numbers and data are not kept (`diff` does not compare their
/// sharing, and equal ones are written once anyway). Models are shared by identity without it.
///
/// A model object decoded from a class dictionary of another shape (no `$classes`, as Xcode's
/// SpriteKit scene editor writes an app's own classes, or with `$classhints`) is written back
/// with that class dictionary.
///
/// An object that a field-mapped value's stored fields refer to (an attributed string's font
/// that a cell also holds) is written as the shared object or model the decode made for it, or
/// once for every value that reaches it: sharing through a value's insides is kept.
///
/// An unchanged value also comes back as its object was: a collection with the `$classes` chain
/// it had (an `NSNull < %NSNull < NSObject`, not the chain the package writes by default), and a
/// single value (an `NSURL`, `NSDate`, …) exactly as stored, down to an `NS.relative` that was an
/// `NSMutableString`.
///
/// The table holds every value it keeps (their storage cannot be reused while it lives), so
/// use one per decode and drop it after encoding. Not `Sendable`: it belongs to one task.
public final class ArchiveIdentityTable {
    /// The type a value was decoded as and the bits of the value.
    struct Key: Hashable {
        let type: ObjectIdentifier
        let words: [UInt64]

        init<T>(_ value: T) {
            type = ObjectIdentifier(T.self)
            // A value that keeps its decoded object is that object's, unchanged: its bits would
            // also hold the padding of its stored properties, which a copy need not keep.
            if let address = decodedObjectAddress(of: value) {
                words = [UInt64(UInt(bitPattern: address))]
                return
            }
            var words: [UInt64] = []
            withUnsafeBytes(of: value) { raw in
                words.reserveCapacity((raw.count + 7) / 8)
                var offset = 0
                while offset + 8 <= raw.count {
                    words.append(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    offset += 8
                }
                if offset < raw.count {
                    var last: UInt64 = 0
                    for (shift, byte) in raw[offset...].enumerated() { last |= UInt64(byte) << (UInt64(shift) * 8) }
                    words.append(last | UInt64(raw.count - offset) << 60)
                }
            }
            self.words = words
        }
    }

    /// What a decode noted for one value: its object (-1 when values of several objects had
    /// the same bits), the object's `$classes` (nil when those objects' differ), and for an
    /// object that is one value rather than a collection (an NSURL, NSDate, NSValue, …), the
    /// object itself as stored, to be written again exactly while the value is unchanged.
    struct Source {
        var uid: Int
        var chain: [String]?
        var copy: ArchiveGenericObject?
    }

    private var sources: [Key: Source] = [:]
    /// The archived object each object of a value's stored copy stands for (what a
    /// field-mapped value's fields refer to, such as an attributed string's font), and the
    /// ``ArchiveSharedObject`` an ``ArchiveValue`` decode made for an archived object. Encoding
    /// writes a copy's object as the shared object decoded for the same archived object when
    /// there is one, else once for every copy that stands for it, so that sharing through a
    /// mapped value's insides is kept (issue 51). Shared objects are never replaced: a change
    /// made to one is written.
    private var copySources: [ObjectIdentifier: Int] = [:]
    private var liveObjects: [Int: ArchiveValue] = [:]
    /// The class dictionaries of another shape than `$classname` and `$classes` that model
    /// objects were decoded from, by object: written back with them.
    private var classDictionaries: [ObjectIdentifier: ArchiveGraph.ClassDescriptor] = [:]
    /// The values kept, so that their storage is not freed and reused while the table lives.
    private var kept: [Any] = []

    /// An empty table.
    public init() {}

    /// How many values are kept.
    public var count: Int { kept.count }

    /// Notes that `value` was decoded from the object `uid` of class chain `chain`, and, for a
    /// single value, the object as stored (`copy`, made only for a value not seen before).
    func record<T>(_ value: T, uid: Int, chain: [String], copy: () -> ArchiveGenericObject?) {
        let key = Key(value)
        if var known = sources[key] {
            guard known.uid != uid else { return }
            known.uid = -1
            known.copy = nil
            if let previous = known.chain, previous != chain { known.chain = nil }
            sources[key] = known
            return
        }
        sources[key] = Source(uid: uid, chain: chain, copy: copy())
        kept.append(value)
    }

    /// Notes that `object`, of a value's stored copy, stands for the archived object `uid` (kept
    /// alive by the table, so that its identifier is not reused).
    func recordCopy(_ object: ArchiveGenericObject, uid: Int) {
        let key = ObjectIdentifier(object)
        guard copySources[key] == nil else { return }
        copySources[key] = uid
        kept.append(object)
    }

    /// Notes the shared object (or the model) an ``ArchiveValue`` decode made for the archived
    /// object `uid`.
    func recordLive(_ object: ArchiveSharedObject?, uid: Int) {
        guard let object, liveObjects[uid] == nil else { return }
        liveObjects[uid] = .shared(object)
    }

    func recordLive(_ model: ArchiveModelObject, uid: Int) {
        guard liveObjects[uid] == nil else { return }
        liveObjects[uid] = .model(model)
    }

    /// Notes that the model `object` was decoded from an object whose class dictionary has
    /// another shape (`descriptor`: no `$classes`, or `$classhints`).
    func recordClassDictionary(_ descriptor: ArchiveGraph.ClassDescriptor, of object: AnyObject) {
        let key = ObjectIdentifier(object)
        guard classDictionaries[key] == nil else { return }
        classDictionaries[key] = descriptor
        kept.append(object)
    }

    /// The class dictionary of another shape the model `object` was decoded from, if any.
    func classDictionary(of object: AnyObject) -> ArchiveGraph.ClassDescriptor? {
        classDictionaries.isEmpty ? nil : classDictionaries[ObjectIdentifier(object)]
    }

    /// The archived object a copy's object stands for, if a decode noted one.
    func sourceUID(of object: AnyObject) -> Int? {
        guard !copySources.isEmpty else { return nil }
        return copySources[ObjectIdentifier(object)]
    }

    /// The shared object or model decoded for the archived object `uid`, if any.
    func liveObject(for uid: Int) -> ArchiveValue? {
        liveObjects.isEmpty ? nil : liveObjects[uid]
    }

    /// What was noted for `value`, if it is one value this table kept, unchanged.
    func source<T>(of value: T) -> Source? {
        guard !sources.isEmpty else { return nil }
        return sources[Key(value)]
    }
}

extension KeyedArchiveEncoder {
    /// The reference for `value` (``KeyedArchiver/identities``): for a value a decode noted and
    /// that is unchanged, the object already written for its source object, or its source
    /// object written again as stored (a single value) or with its source's `$classes` (a
    /// collection); otherwise what `encode` writes.
    func sharedReference<T>(for value: T, encode: () throws(ArchiveError) -> ArchiveReference) throws(ArchiveError) -> ArchiveReference {
        guard let identities = session.identities, !(T.self is AnyClass), let source = identities.source(of: value) else { return try encode() }
        // Values of several objects had these bits (two equal dates, two short strings alike):
        // which holder had which object cannot be told, so each is written on its own, in the
        // form those objects shared (their chain), never merged into one.
        guard source.uid >= 0 else { return try session.withChain(source.chain, encode) }
        // Every value decoded with these bits came from this one object: it is written as that
        // object once, and every holder refers to it, as the archive had it.
        if let known = session.sharedReferences[source.uid] { return known }
        let reference: ArchiveReference
        if let copy = source.copy {
            reference = try self.reference(for: copy)
        } else {
            reference = try session.withChain(source.chain, encode)
        }
        session.sharedReferences[source.uid] = reference
        return reference
    }
}
