import PropertyList

extension KeyedArchiver {
    /// Decodes every `$top` value of `bytes` through `registry` and archives the values again
    /// under the same keys, in the same format (binary or XML): what a model family proves
    /// with it is that every value it decodes comes back (compare the two with `ArchiveDiff`).
    ///
    /// Each referenced `$top` value is decoded as an ``ArchiveValue`` — models through their
    /// registered types when the registry's ``ArchiveRegistry/decodesModelsInArchiveValues`` is
    /// set, as the registries `keyedarchive schema --swift` writes are — and the values kept by
    /// one ``ArchiveIdentityTable``, so that objects the archive shares stay shared. Values
    /// stored without a key (`$0`, `$1`, …) come back in order; numbers stored in `$top` itself
    /// (compiled nibs do) are copied. An archive whose Foundation collections contain themselves
    /// (an `NSMutableArray` holding itself), which no Swift value can, or objects of a class the
    /// registry neither registers nor maps (`NSCountedSet`), or an `NSValue` of a structure
    /// with no mapping, is copied as stored instead, object by object with nothing
    /// instantiated, every `$top` value; a model's failure is thrown.
    /// - Throws: the ``ArchiveError`` of the first value that does not decode or encode.
    public static func roundTrip(_ bytes: [UInt8], registry: ArchiveRegistry, options: ArchiveReadingOptions = .default) throws(ArchiveError) -> [UInt8] {
        do {
            return try roundTrip(bytes, registry: registry, options: options, generic: false)
        } catch {
            guard try isInexpressible(error, in: bytes, registry: registry) else { throw error }
            return try roundTrip(bytes, registry: registry, options: options, generic: true)
        }
    }

    /// Whether `error` says the archive holds what no Swift type of the package can: a
    /// collection that contains itself, an object of a class neither registered nor mapped
    /// (`NSCountedSet`, a private subclass), or an `NSValue` of a structure the package has no
    /// mapping for. Any other failure, a model's included, is a real one.
    private static func isInexpressible(_ error: ArchiveError, in bytes: [UInt8], registry: ArchiveRegistry) throws(ArchiveError) -> Bool {
        var name: String?
        if let uid = error.uid { name = try ArchiveGraph(bytes: bytes).className(of: uid) }
        switch error.code {
        case .cyclicReference, .classNotAllowed:
            return name.map { registry.entry(named: $0) == nil } ?? true
        case .typeMismatch:
            return name == "NSValue"
        default:
            return false
        }
    }

    private static func roundTrip(_ bytes: [UInt8], registry: ArchiveRegistry, options: ArchiveReadingOptions, generic: Bool) throws(ArchiveError) -> [UInt8] {
        let identities = ArchiveIdentityTable()
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry, options: options)
        unarchiver.identities = identities
        let archiver = KeyedArchiver(registry: registry)
        archiver.identities = identities
        archiver.archiverName = try unarchiver.archiverName
        let top = unarchiver.topLevelDecoder
        func copy(_ stored: PropertyListValue, storedKey: String, decode: () throws(ArchiveError) -> Void) throws(ArchiveError) {
            if case .uid(let uid) = stored, uid.value != 0 {
                try decode()
            } else {
                // $null, or a number stored in $top itself.
                try archiver.topLevelEncoder.encodeRaw(stored, forStoredKey: storedKey)
            }
        }
        for key in top.allKeys {
            let storedKey = ArchiveKeys.escape(key)
            guard let stored = top.rawValue(forStoredKey: storedKey) else { continue }
            try copy(stored, storedKey: storedKey) { () throws(ArchiveError) in
                if generic {
                    try archiver.encode(try unarchiver.decode(ArchiveGenericObject.self, forKey: key), forKey: key)
                } else {
                    try archiver.encode(try unarchiver.decode(ArchiveValue.self, forKey: key), forKey: key)
                }
            }
        }
        var index = 0
        while let stored = top.rawValue(forStoredKey: "$\(index)") {
            try copy(stored, storedKey: "$\(index)") { () throws(ArchiveError) in
                let encoder = archiver.topLevelEncoder
                let copied = generic
                    ? try encoder.reference(for: try unarchiver.decodeUnkeyed(ArchiveGenericObject.self, at: index))
                    : try encoder.reference(for: try unarchiver.decodeUnkeyed(ArchiveValue.self, at: index))
                try encoder.encodeRaw(.uid(copied.uid), forStoredKey: "$\(index)")
            }
            index += 1
        }
        return try archiver.finish(format: bytes.starts(with: Array("bplist".utf8)) ? .binary : .xml)
    }
}
