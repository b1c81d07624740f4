import PropertyList

extension ArchiveSchemaBuilder {
    /// Adds what another schema observed — its archives, classes, chains, keys and kinds — as if
    /// its archives had been observed here: counts add up, kinds and chains are united. Only
    /// observations are taken; superclasses, declarations and cycles are worked out again by
    /// ``finish(graphs:)`` (cycles only from the graphs observed here).
    mutating func observe(_ other: ArchiveSchema) {
        schema.archiveCount = Self.sum(schema.archiveCount, other.archiveCount)
        schema.objectCount = Self.sum(schema.objectCount, other.objectCount)
        for key in other.topKeys {
            let position: Int
            if let found = topKeyIndex[key.storedKey] {
                position = found
            } else {
                position = schema.topKeys.count
                topKeyIndex[key.storedKey] = position
                schema.topKeys.append(ArchiveSchema.Key(storedKey: key.storedKey))
            }
            Self.add(key, to: &schema.topKeys[position])
        }
        for type in other.classes {
            let id = classID(type.name)
            for chain in type.chains {
                _ = observeClass(ArchiveGraph.ClassDescriptor(name: type.name, classes: chain))
            }
            schema.classes[id].instanceCount = Self.sum(schema.classes[id].instanceCount, type.instanceCount)
            schema.classes[id].sharedCount = Self.sum(schema.classes[id].sharedCount, type.sharedCount)
            for key in type.keys {
                let position: Int
                if let found = keyIndex[id][key.storedKey] {
                    position = found
                } else {
                    position = schema.classes[id].keys.count
                    keyIndex[id][key.storedKey] = position
                    schema.classes[id].keys.append(ArchiveSchema.Key(storedKey: key.storedKey))
                }
                Self.add(key, to: &schema.classes[id].keys[position])
            }
        }
    }

    /// `key`'s presence, kinds and contents added to `target`'s.
    static func add(_ key: ArchiveSchema.Key, to target: inout ArchiveSchema.Key) {
        target.presentCount = sum(target.presentCount, key.presentCount)
        target.kinds.merge(key.kinds)
        for contents in key.contents { target.add(contents) }
    }

    /// Counts from schema files are the file's word: added without trapping, however large.
    static func sum(_ a: Int, _ b: Int) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : total
    }
}

extension ArchiveSchema.Key {
    /// What another collection (or another schema's collections) of the same class hold, added
    /// to what this key's collections of that class hold.
    mutating func add(_ other: ArchiveSchema.Contents) {
        if let position = contents.firstIndex(where: { $0.className == other.className }) {
            contents[position].elements.merge(other.elements)
            contents[position].keys.merge(other.keys)
            if other.isTruncated { contents[position].isTruncated = true }
        } else {
            contents.append(other)
        }
    }
}
