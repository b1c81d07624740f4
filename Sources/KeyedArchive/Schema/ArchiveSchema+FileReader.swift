import PropertyList

extension ArchiveSchema {
    /// Reads a schema file (``jsonDescription``) back. Writing what it reads gives the same
    /// bytes again (for a file this package wrote); a file edited by hand or merged by a
    /// version-control tool is read in any member and list order.
    ///
    /// The file is untrusted input: it is parsed by `PropertyListJSONReader` (no recursion,
    /// bounded sizes) and then checked member by member, so that whatever it holds gives either
    /// a schema whose counts agree with each other or one typed error naming where it went wrong.
    /// - Throws: ``ArchiveSchemaFileError``: ``ArchiveSchemaFileError/Code/invalidJSON`` for
    ///   text that is not JSON, ``ArchiveSchemaFileError/Code/notASchema`` for other JSON,
    ///   ``ArchiveSchemaFileError/Code/unsupportedVersion`` for a newer format, and
    ///   ``ArchiveSchemaFileError/Code/invalidField`` for a member missing, mistyped, unknown,
    ///   written twice, out of range or inconsistent.
    public init(jsonFile bytes: [UInt8]) throws(ArchiveSchemaFileError) {
        let observed = try ArchiveSchemaFileReader.read(bytes)
        self.init(graphs: [], schemas: [observed])
    }

    /// Infers the schema of `graphs` and adds the observations of `schemas` (schema files read
    /// with ``init(jsonFile:)``, or schemas of other archives): the contract grown by new
    /// fixtures. Instance and presence counts add up, kinds and chains are united; cycles and
    /// back-references come from `graphs` only, since a schema file does not record them.
    /// - Parameters:
    ///   - graphs: archives, read and validated.
    ///   - schemas: schemas whose observations are added.
    ///   - formats: the format of each graph's file, for generated round trips.
    public init(graphs: [ArchiveGraph], schemas: [ArchiveSchema], formats: [ArchiveFormat] = []) {
        self.init(graphs: graphs, schemas: schemas, formats: formats, findingCycles: true)
    }

    /// The same, without the walk for cycles when `findingCycles` is false: a compatibility
    /// check needs only observations, and the walk is a third of a corpus's cost.
    init(graphs: [ArchiveGraph], schemas: [ArchiveSchema], formats: [ArchiveFormat], findingCycles: Bool) {
        var builder = ArchiveSchemaBuilder()
        for graph in graphs { builder.observe(graph) }
        for schema in schemas { builder.observe(schema) }
        self = builder.finish(graphs: findingCycles ? graphs : [])
        self.formats = formats
    }
}

/// Reads the members of a schema file into an ``ArchiveSchema`` holding only observations.
struct ArchiveSchemaFileReader {
    /// The largest count a file may state: far beyond any real archive set, and small enough
    /// that adding the counts of many files never overflows.
    static let maximumCount = 1 << 48

    static func read(_ bytes: [UInt8]) throws(ArchiveSchemaFileError) -> ArchiveSchema {
        var options = PropertyListReadingOptions()
        // The format nests five levels; a little room, and nothing a hostile file can use.
        options.maximumDepth = 16
        let document: PropertyListValue
        do {
            document = try PropertyListJSONReader.read(bytes, options: options)
        } catch {
            throw ArchiveSchemaFileError(.invalidJSON, error.description, propertyListError: error)
        }
        guard case .dictionary(let root) = document else {
            throw ArchiveSchemaFileError(.notASchema, "the document is \(document.kindNameWithArticle), not a schema object")
        }
        guard case .string(let format)? = root["format"], format == ArchiveSchema.fileFormatName else {
            throw ArchiveSchemaFileError(.notASchema, "no \"format\": \"\(ArchiveSchema.fileFormatName)\" member: this JSON is not a schema file")
        }
        guard case .integer(let versionValue)? = root["version"] else {
            throw ArchiveSchemaFileError(.invalidField, "expected the format version, an integer", path: "version")
        }
        guard !versionValue.isNegative, versionValue.int64Value != 0 else {
            throw ArchiveSchemaFileError(.invalidField, "format version \(versionValue) is not a version (1 or later)", path: "version")
        }
        guard let version = versionValue.int64Value, version <= Int64(ArchiveSchema.fileFormatVersion) else {
            throw ArchiveSchemaFileError(.unsupportedVersion, "format version \(versionValue) is newer than this package reads (version \(ArchiveSchema.fileFormatVersion)); read it with a newer keyedarchive", path: "version")
        }
        let members = try Self.members(.dictionary(root), path: "", allowed: ["format", "version", "archives", "objects", "top", "classes"],
                                       optional: [])
        var schema = ArchiveSchema()
        schema.archiveCount = try Self.count(members, "archives", path: "")
        schema.objectCount = try Self.count(members, "objects", path: "")
        var seenTop: Set<String> = []
        for (index, item) in try Self.array(members, "top", path: "").enumerated() {
            let path = "top[\(index)]"
            let key = try Self.key(item, path: path, total: schema.archiveCount, totalName: "archives")
            guard seenTop.insert(key.storedKey).inserted else {
                throw ArchiveSchemaFileError(.invalidField, "the $top key \(Self.quote(key.storedKey)) is listed twice", path: path + ".key")
            }
            schema.topKeys.append(key)
        }
        for (index, item) in try Self.array(members, "classes", path: "").enumerated() {
            let path = "classes[\(index)]"
            let type = try Self.type(item, path: path)
            guard schema.classIndex[type.name] == nil else {
                throw ArchiveSchemaFileError(.invalidField, "the class \(Self.quote(type.name)) is listed twice", path: path + ".name")
            }
            schema.classIndex[type.name] = schema.classes.count
            schema.classes.append(type)
        }
        for (index, type) in schema.classes.enumerated() {
            for (position, chain) in type.chains.enumerated() {
                for name in chain where schema.classIndex[name] == nil {
                    throw ArchiveSchemaFileError(.invalidField, "the chain names \(Self.quote(name)), which is not listed among the classes", path: "classes[\(index)].chains[\(position)]")
                }
            }
        }
        return schema
    }

    private static func type(_ value: PropertyListValue, path: String) throws(ArchiveSchemaFileError) -> ArchiveSchema.Class {
        let members = try members(value, path: path, allowed: ["name", "instances", "shared", "chains", "keys"], optional: [])
        var type = ArchiveSchema.Class(name: try string(members, "name", path: path))
        type.instanceCount = try count(members, "instances", path: path)
        type.sharedCount = try count(members, "shared", path: path)
        guard type.sharedCount <= type.instanceCount else {
            throw ArchiveSchemaFileError(.invalidField, "\(type.sharedCount) shared of \(type.instanceCount) instances", path: path + ".shared")
        }
        var seenChains: Set<[ArchiveExactKey]> = []
        for (index, item) in try array(members, "chains", path: path).enumerated() {
            let chainPath = "\(path).chains[\(index)]"
            guard case .array(let names) = item, !names.isEmpty else {
                throw ArchiveSchemaFileError(.invalidField, "expected a chain: a non-empty array of class names", path: chainPath)
            }
            var chain: [String] = []
            for (position, name) in names.enumerated() {
                guard case .string(let text) = name else {
                    throw ArchiveSchemaFileError(.invalidField, "expected a class name, found \(name.kindNameWithArticle)", path: "\(chainPath)[\(position)]")
                }
                chain.append(text)
            }
            guard chain[0].isExactlyEqual(to: type.name) else {
                throw ArchiveSchemaFileError(.invalidField, "a chain of \(quote(type.name)) starts with \(quote(chain[0]))", path: chainPath)
            }
            guard seenChains.insert(chain.map(ArchiveExactKey.init)).inserted else {
                throw ArchiveSchemaFileError(.invalidField, "the chain is listed twice", path: chainPath)
            }
            type.chains.append(chain)
        }
        var seenKeys: Set<String> = []
        for (index, item) in try array(members, "keys", path: path).enumerated() {
            let keyPath = "\(path).keys[\(index)]"
            let key = try key(item, path: keyPath, total: type.instanceCount, totalName: "instances")
            guard seenKeys.insert(key.storedKey).inserted else {
                throw ArchiveSchemaFileError(.invalidField, "the key \(quote(key.storedKey)) is listed twice", path: keyPath + ".key")
            }
            type.keys.append(key)
        }
        return type
    }

    private static func key(_ value: PropertyListValue, path: String, total: Int, totalName: String) throws(ArchiveSchemaFileError) -> ArchiveSchema.Key {
        let members = try members(value, path: path, allowed: ["key", "present", "kinds", "contents"], optional: ["contents"])
        var key = ArchiveSchema.Key(storedKey: try string(members, "key", path: path))
        key.presentCount = try count(members, "present", path: path)
        guard key.presentCount >= 1, key.presentCount <= total else {
            throw ArchiveSchemaFileError(.invalidField, "present \(key.presentCount) times, expected 1 to \(total) (the \(totalName))", path: path + ".present")
        }
        key.kinds = try kinds(try array(members, "kinds", path: path), path: path + ".kinds")
        var kindTotal = 0
        for kind in key.kinds.kinds { kindTotal = ArchiveSchemaBuilder.sum(kindTotal, key.kinds.counts[kind] ?? 0) }
        guard kindTotal == key.presentCount else {
            throw ArchiveSchemaFileError(.invalidField, "the kinds count \(kindTotal) values for a key present \(key.presentCount) times", path: path + ".kinds")
        }
        if members["contents"] != nil {
            for (index, item) in try array(members, "contents", path: path).enumerated() {
                let contentsPath = "\(path).contents[\(index)]"
                let fields = try self.members(item, path: contentsPath, allowed: ["class", "elements", "keys", "truncated"], optional: ["keys", "truncated"])
                var contents = ArchiveSchema.Contents(className: try string(fields, "class", path: contentsPath))
                guard ArchiveSchemaBuilder.collectionClasses.contains(contents.className), key.kinds.counts[.object(contents.className)] != nil else {
                    throw ArchiveSchemaFileError(.invalidField, "contents of \(quote(contents.className)), which is not a collection class among the key's kinds", path: contentsPath + ".class")
                }
                guard !key.contents.contains(where: { $0.className == contents.className }) else {
                    throw ArchiveSchemaFileError(.invalidField, "the contents of \(quote(contents.className)) are listed twice", path: contentsPath + ".class")
                }
                contents.elements = try kinds(try array(fields, "elements", path: contentsPath), path: contentsPath + ".elements")
                if fields["keys"] != nil {
                    contents.keys = try kinds(try array(fields, "keys", path: contentsPath), path: contentsPath + ".keys")
                }
                if let truncated = fields["truncated"] {
                    guard case .bool(let flag) = truncated else {
                        throw ArchiveSchemaFileError(.invalidField, "expected true or false, found \(truncated.kindNameWithArticle)", path: contentsPath + ".truncated")
                    }
                    contents.isTruncated = flag
                }
                key.contents.append(contents)
            }
        }
        return key
    }

    private static func kinds(_ items: [PropertyListValue], path: String) throws(ArchiveSchemaFileError) -> ArchiveSchema.KindCounts {
        var kinds = ArchiveSchema.KindCounts()
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            let fields = try members(item, path: itemPath, allowed: ["kind", "class", "other", "count"], optional: ["kind", "class", "other"])
            let count = try count(fields, "count", path: itemPath)
            guard count >= 1 else {
                throw ArchiveSchemaFileError(.invalidField, "a kind seen 0 times", path: itemPath + ".count")
            }
            let kind: ArchiveSchema.ValueKind
            switch (fields["kind"] != nil, fields["class"] != nil, fields["other"] != nil) {
            case (true, false, false):
                let token = try string(fields, "kind", path: itemPath)
                guard let known = ArchiveSchema.ValueKind.kindsByFileToken[token] else {
                    throw ArchiveSchemaFileError(.invalidField, "unknown kind \(quote(token))", path: itemPath + ".kind")
                }
                kind = known
            case (false, true, false):
                kind = .object(try string(fields, "class", path: itemPath))
            case (false, false, true):
                kind = .otherObject(try string(fields, "other", path: itemPath))
            default:
                throw ArchiveSchemaFileError(.invalidField, "expected exactly one of \"kind\", \"class\" and \"other\"", path: itemPath)
            }
            guard kinds.counts[kind] == nil else {
                throw ArchiveSchemaFileError(.invalidField, "the kind is listed twice", path: itemPath)
            }
            kinds.add(kind, times: count)
        }
        return kinds
    }

    // MARK: Members

    /// An object's members by name, refusing a member written twice, one not in `allowed`, and
    /// a missing one not in `optional`.
    private static func members(_ value: PropertyListValue, path: String, allowed: [String], optional: Set<String>) throws(ArchiveSchemaFileError) -> [String: PropertyListValue] {
        guard case .dictionary(let dictionary) = value else {
            throw ArchiveSchemaFileError(.invalidField, "expected an object, found \(value.kindNameWithArticle)", path: path)
        }
        var members: [String: PropertyListValue] = [:]
        for entry in dictionary.entries {
            guard allowed.contains(where: { $0.isExactlyEqual(to: entry.key) }) else {
                throw ArchiveSchemaFileError(.invalidField, "unknown member \(quote(entry.key))", path: path)
            }
            guard members.updateValue(entry.value, forKey: entry.key) == nil else {
                throw ArchiveSchemaFileError(.invalidField, "the member \(quote(entry.key)) is written twice", path: path)
            }
        }
        for name in allowed where members[name] == nil && !optional.contains(name) {
            throw ArchiveSchemaFileError(.invalidField, "the member \(quote(name)) is missing", path: path)
        }
        return members
    }

    private static func member(_ path: String, _ name: String) -> String {
        path.isEmpty ? name : "\(path).\(name)"
    }

    private static func count(_ members: [String: PropertyListValue], _ name: String, path: String) throws(ArchiveSchemaFileError) -> Int {
        guard case .integer(let integer)? = members[name] else {
            throw ArchiveSchemaFileError(.invalidField, "expected a count, found \(members[name]?.kindNameWithArticle ?? "nothing")", path: member(path, name))
        }
        guard let value = integer.int64Value, value >= 0, value <= Int64(maximumCount) else {
            throw ArchiveSchemaFileError(.invalidField, "the count \(integer) is outside 0…\(maximumCount)", path: member(path, name))
        }
        return Int(value)
    }

    private static func string(_ members: [String: PropertyListValue], _ name: String, path: String) throws(ArchiveSchemaFileError) -> String {
        guard case .string(let text)? = members[name] else {
            throw ArchiveSchemaFileError(.invalidField, "expected a string, found \(members[name]?.kindNameWithArticle ?? "nothing")", path: member(path, name))
        }
        return text
    }

    private static func array(_ members: [String: PropertyListValue], _ name: String, path: String) throws(ArchiveSchemaFileError) -> [PropertyListValue] {
        guard case .array(let items)? = members[name] else {
            throw ArchiveSchemaFileError(.invalidField, "expected an array, found \(members[name]?.kindNameWithArticle ?? "nothing")", path: member(path, name))
        }
        return items
    }

    /// Text from the file as a message shows it: quoted, escaped, cut short.
    private static func quote(_ text: String) -> String {
        "\"\(text.excerptForMessage(128))\""
    }
}
