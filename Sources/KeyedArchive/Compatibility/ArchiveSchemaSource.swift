#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// One side of a compatibility check: a schema, and the archives it was inferred from when it
/// was (their key paths make the examples in ``ArchiveCompatibility``'s report). Made from a
/// schema file, an archive, a folder of archives and schema files, or bytes in memory.
public struct ArchiveSchemaSource: Sendable {
    /// One archive read for the schema, kept for examples.
    public struct Archive: Sendable {
        /// How reports name it: its path as given, or a folder's path and the path inside it.
        public let name: String
        /// The archive's object graph.
        public let graph: ArchiveGraph
    }

    /// How reports name this side (the path given on the command line).
    public let name: String
    /// The schema: the archives' and schema files' observations merged (without the
    /// back-references generated code needs: ``ArchiveSchema/Key/cycleCount`` is 0 throughout).
    public let schema: ArchiveSchema
    /// The archives among the inputs (none for a schema file).
    public let archives: [Archive]
    /// Files in a folder that were passed over: neither a property list nor a schema file.
    public let skippedFiles: [String]

    /// One input file as read: an archive (an index into ``archives``) or a schema file.
    enum Part: Sendable {
        case archive(Int, ArchiveFormat)
        case schema(ArchiveSchema)
    }

    /// The inputs, in order, so that a side can be narrowed to the archives and schema files of
    /// one kind (``kinds``).
    let parts: [Part]

    /// A side that is `schema` alone (no archives, so no example key paths).
    public init(name: String, schema: ArchiveSchema) {
        self.name = name
        self.schema = schema
        archives = []
        skippedFiles = []
        parts = [.schema(schema)]
    }

    private init(name: String, schema: ArchiveSchema, archives: [Archive], parts: [Part]) {
        self.name = name
        self.schema = schema
        self.archives = archives
        skippedFiles = []
        self.parts = parts
    }

    /// The kinds of archive this side holds, each with the inputs of that kind, first seen
    /// first. An archive's kind is what its `$top` keys refer to: `root=FleetApp.Pilot`, or
    /// `root=NSArray<FleetApp.Flight>` for a collection (its elements' classes); a schema file
    /// is one kind, its `$top` keys' (so a contract folder holding one schema file per kind keeps
    /// them apart, where one merged schema file cannot).
    var kinds: [(signature: String, parts: [Int])] {
        var order: [String] = []
        var members: [String: [Int]] = [:]
        for (index, part) in parts.enumerated() {
            let signature: String
            switch part {
            case .schema(let schema):
                signature = Self.kindSignature(of: schema)
            case .archive(let position, let format):
                signature = Self.kindSignature(of: ArchiveSchema(graphs: [archives[position].graph], schemas: [], formats: [format], findingCycles: false))
            }
            if members[signature] == nil { order.append(signature) }
            members[signature, default: []].append(index)
        }
        return order.map { ($0, members[$0] ?? []) }
    }

    /// `root=FleetApp.Pilot, backup=NSArray<FleetApp.Pilot>`: the classes each `$top` key refers
    /// to, a Foundation collection with the classes of its elements.
    static func kindSignature(of schema: ArchiveSchema) -> String {
        func classes(_ key: ArchiveSchema.Key) -> [String] {
            key.kinds.kinds.compactMap { if case .object(let name) = $0 { return name } else { return nil } }
        }
        var keys: [String] = []
        for key in schema.topKeys.sorted(by: { ArchiveSchema.precedes($0.storedKey, $1.storedKey) }) {
            var names: [String] = []
            for name in classes(key).sorted(by: ArchiveSchema.precedes) {
                guard let type = schema.class(named: name), type.isFoundation else { names.append(name); continue }
                let elements = Set(type.keys.flatMap(classes)).sorted(by: ArchiveSchema.precedes)
                names.append(elements.isEmpty ? name : "\(name)<\(elements.joined(separator: "|"))>")
            }
            if !names.isEmpty { keys.append("\(key.storedKey)=\(names.joined(separator: "|"))") }
        }
        return keys.joined(separator: ", ")
    }

    /// This side narrowed to the inputs at `indices` (of ``parts``), named `name`.
    func restricted(to indices: [Int], name: String) -> ArchiveSchemaSource {
        var graphs: [ArchiveGraph] = [], formats: [ArchiveFormat] = [], schemas: [ArchiveSchema] = []
        var kept: [Archive] = [], keptParts: [Part] = []
        for index in indices where parts.indices.contains(index) {
            switch parts[index] {
            case .schema(let schema):
                schemas.append(schema)
                keptParts.append(.schema(schema))
            case .archive(let position, let format):
                graphs.append(archives[position].graph)
                formats.append(format)
                keptParts.append(.archive(kept.count, format))
                kept.append(archives[position])
            }
        }
        return ArchiveSchemaSource(name: name, schema: ArchiveSchema(graphs: graphs, schemas: schemas, formats: formats, findingCycles: false),
                                   archives: kept, parts: keptParts)
    }

    /// A side made of `files`: each is a keyed archive (binary or XML) or a schema file (JSON),
    /// told apart by their first bytes, and merged into one schema.
    /// - Throws: ``ArchiveSchemaSourceError`` naming the first file that is neither.
    public init(name: String, files: [(name: String, bytes: [UInt8])]) throws(ArchiveSchemaSourceError) {
        try self.init(name: name, files: files, skipped: [])
    }

    private init(name: String, files: [(name: String, bytes: [UInt8])], skipped: [String]) throws(ArchiveSchemaSourceError) {
        var graphs: [ArchiveGraph] = []
        var formats: [ArchiveFormat] = []
        var schemas: [ArchiveSchema] = []
        var archives: [Archive] = []
        var parts: [Part] = []
        for file in files {
            let graph: ArchiveGraph
            if PropertyListJSONReader.looksLikeJSON(file.bytes) {
                switch Result(catching: { () throws(ArchiveSchemaFileError) in try ArchiveSchema(jsonFile: file.bytes) }) {
                case .success(let schema):
                    schemas.append(schema)
                    parts.append(.schema(schema))
                    continue
                case .failure(let error) where error.code == .notASchema || error.code == .invalidJSON:
                    // Not a schema file: the canonical JSON of an archive (Docs/PlistJSON.md), or neither.
                    guard let value = try? PropertyListJSONReader.read(file.bytes), let made = try? ArchiveGraph(propertyList: value) else {
                        throw ArchiveSchemaSourceError(.invalidSchemaFile, "\(error)", file: file.name, schemaFileError: error)
                    }
                    graph = made
                case .failure(let error):
                    throw ArchiveSchemaSourceError(.invalidSchemaFile, "\(error)", file: file.name, schemaFileError: error)
                }
            } else {
                do {
                    graph = try ArchiveGraph(bytes: file.bytes)
                } catch {
                    throw ArchiveSchemaSourceError(.invalidArchive, "\(error)", file: file.name, archiveError: error)
                }
            }
            graphs.append(graph)
            let format: ArchiveFormat = file.bytes.starts(with: Array("bplist".utf8)) || PropertyListJSONReader.looksLikeJSON(file.bytes) ? .binary : .xml
            formats.append(format)
            parts.append(.archive(archives.count, format))
            archives.append(Archive(name: file.name, graph: graph))
        }
        self.name = name
        // Cycles and back-references matter to generated code, not to compatibility.
        schema = ArchiveSchema(graphs: graphs, schemas: schemas, formats: formats, findingCycles: false)
        self.archives = archives
        skippedFiles = skipped
        self.parts = parts
    }

    /// The most bytes read from one file: 1 GiB, as the command-line tool reads.
    public static let maximumFileByteCount = 1 << 30
    /// The most files read from one folder.
    public static let maximumFileCount = 1 << 16

    /// Reads `path`: a schema file, an archive, or a folder. A folder is read recursively
    /// (hidden entries and symbolic links to folders are passed over), its files in the order of
    /// their paths' UTF-8 bytes: property lists must be keyed archives and JSON files schema
    /// files; anything else (a README, a manifest, JSON of another kind) is listed in
    /// ``skippedFiles``.
    /// - Throws: ``ArchiveSchemaSourceError``: a path that cannot be read, a file that is not a
    ///   valid archive or schema file, or a folder with neither.
    public static func load(path: String) throws(ArchiveSchemaSourceError) -> ArchiveSchemaSource {
        let manager = FileManager.default
        guard let pathType = fileType(path, followingLinks: true) else {
            throw ArchiveSchemaSourceError(.unreadable, "no such file or folder", file: path)
        }
        guard pathType == .typeDirectory else {
            return try ArchiveSchemaSource(name: path, files: [(path, try readFile(path))])
        }
        var files: [(name: String, bytes: [UInt8])] = []
        var skipped: [String] = []
        var pending: [(relative: String, depth: Int)] = [("", 0)]
        var found: [String] = []
        while let (relative, depth) = pending.popLast() {
            let folder = relative.isEmpty ? path : path + "/" + relative
            let entries: [String]
            do {
                entries = try manager.contentsOfDirectory(atPath: folder)
            } catch {
                throw ArchiveSchemaSourceError(.unreadable, "cannot list the folder", file: folder)
            }
            for entry in entries where !entry.hasPrefix(".") {
                let child = relative.isEmpty ? entry : relative + "/" + entry
                let full = path + "/" + child
                let type = fileType(full, followingLinks: false)
                if type == .typeDirectory {
                    guard depth < 64 else { throw ArchiveSchemaSourceError(.unreadable, "folders nest more than 64 deep", file: full) }
                    pending.append((child, depth + 1))
                } else if type == .typeRegular || (type == .typeSymbolicLink && fileType(full, followingLinks: true) == .typeRegular) {
                    found.append(child)
                    guard found.count <= maximumFileCount else {
                        throw ArchiveSchemaSourceError(.unreadable, "more than \(maximumFileCount) files", file: path)
                    }
                }
            }
        }
        for child in found.sorted(by: ArchiveSchema.precedes) {
            let full = path + "/" + child
            let bytes = try readFile(full)
            if PropertyListJSONReader.looksLikeJSON(bytes) {
                if case .failure(let error) = Result(catching: { () throws(ArchiveSchemaFileError) in try ArchiveSchema(jsonFile: bytes) }),
                   error.code == .notASchema || error.code == .invalidJSON {
                    skipped.append(full)
                    continue
                }
            } else if !looksLikePropertyList(bytes) {
                skipped.append(full)
                continue
            }
            files.append((full, bytes))
        }
        guard !files.isEmpty else {
            throw ArchiveSchemaSourceError(.noArchives, "the folder holds no keyed archive and no schema file", file: path)
        }
        return try ArchiveSchemaSource(name: path, files: files, skipped: skipped)
    }

    /// The type of the file at `path` (of what a symbolic link points to, when following).
    static func fileType(_ path: String, followingLinks: Bool) -> FileAttributeType? {
        let manager = FileManager.default
        guard let type = (try? manager.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else { return nil }
        guard followingLinks, type == .typeSymbolicLink else { return type }
        return (try? manager.attributesOfItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path))?[.type] as? FileAttributeType
    }

    /// Whether `bytes` start as a binary or XML property list does (after a byte-order mark and
    /// white space for XML): the files of a folder that must be archives.
    static func looksLikePropertyList(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: Array("bplist".utf8)) { return true }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<")
    }

    static func readFile(_ path: String) throws(ArchiveSchemaSourceError) -> [UInt8] {
        // A FIFO or a device would block or never end: only regular files (or links to them).
        guard fileType(path, followingLinks: true) == .typeRegular else {
            throw ArchiveSchemaSourceError(.unreadable, "not a readable regular file", file: path)
        }
        let manager = FileManager.default
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        if let size = (try? manager.attributesOfItem(atPath: target))?[.size] as? Int, size > maximumFileByteCount {
            throw ArchiveSchemaSourceError(.unreadable, "longer than \(maximumFileByteCount) bytes, the most read from one file", file: path)
        }
        guard let data = manager.contents(atPath: path) else {
            throw ArchiveSchemaSourceError(.unreadable, "not a readable regular file", file: path)
        }
        guard data.count <= maximumFileByteCount else {
            throw ArchiveSchemaSourceError(.unreadable, "longer than \(maximumFileByteCount) bytes, the most read from one file", file: path)
        }
        return [UInt8](data)
    }
}

/// Why one side of a compatibility check could not be read: a path that cannot be read, a
/// file that is neither a keyed archive nor a schema file, or a folder holding neither.
public struct ArchiveSchemaSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable name for a kind of fault; its raw value is the name.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The path does not exist, or cannot be listed or read as a regular file.
        public static let unreadable = Code(rawValue: "unreadable")
        /// A property list that is not a valid keyed archive (``ArchiveSchemaSourceError/archiveError``).
        public static let invalidArchive = Code(rawValue: "invalidArchive")
        /// JSON that is not a readable schema file (``ArchiveSchemaSourceError/schemaFileError``).
        public static let invalidSchemaFile = Code(rawValue: "invalidSchemaFile")
        /// A folder with no keyed archive and no schema file in it.
        public static let noArchives = Code(rawValue: "noArchives")
        /// A `compat-decisions.txt` that does not read (``ArchiveSchemaSourceError/schemaFileError``
        /// says which line and why).
        public static let invalidDecisions = Code(rawValue: "invalidDecisions")
    }

    /// What kind of fault this is.
    public let code: Code
    /// What went wrong with the file.
    public let message: String
    /// The file (or folder) at fault, as its path was given or found.
    public let file: String
    /// For ``Code/invalidArchive``: the archive's fault.
    public let archiveError: ArchiveError?
    /// For ``Code/invalidSchemaFile``: the schema file's fault.
    public let schemaFileError: ArchiveSchemaFileError?

    /// An error of kind `code` about `file`.
    public init(_ code: Code, _ message: String, file: String, archiveError: ArchiveError? = nil, schemaFileError: ArchiveSchemaFileError? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.archiveError = archiveError
        self.schemaFileError = schemaFileError
    }

    /// `FILE: message`, the file name escaped so that it cannot drive a terminal.
    public var description: String { "\(file.escapedForMessage): \(message)" }

    public static func == (lhs: ArchiveSchemaSourceError, rhs: ArchiveSchemaSourceError) -> Bool {
        lhs.code == rhs.code && lhs.file == rhs.file
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(file)
    }
}

extension ArchiveCompatibilityDecisions {
    /// The decisions file for an old side at `oldPath`: ``fileName`` in the folder holding it (a
    /// contract's folder, or the folder that holds a fixtures folder), when there is one there.
    public static func file(besideOldSide oldPath: String) -> String? {
        guard oldPath != "-" else { return nil }
        // Worked out on the path as given, so that reports name the file as the user would.
        var trimmed = Substring(oldPath)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let candidate: String
        if let slash = trimmed.lastIndex(of: "/") {
            candidate = String(trimmed[...slash]) + fileName
        } else {
            candidate = trimmed == "." || trimmed == ".." ? "\(trimmed)/../\(fileName)" : fileName
        }
        return ArchiveSchemaSource.fileType(candidate, followingLinks: true) == .typeRegular ? candidate : nil
    }

    /// The decisions of the file at `path`.
    /// - Throws: ``ArchiveSchemaSourceError``: ``ArchiveSchemaSourceError/Code/unreadable``, or
    ///   ``ArchiveSchemaSourceError/Code/invalidDecisions`` with the line at fault.
    public init(contentsOfFile path: String) throws(ArchiveSchemaSourceError) {
        let bytes = try ArchiveSchemaSource.readFile(path)
        guard let text = XMLTextValidation.string(validating: bytes) else {
            throw ArchiveSchemaSourceError(.invalidDecisions, "not UTF-8 text", file: path)
        }
        do {
            try self.init(text: text, source: path)
        } catch {
            throw ArchiveSchemaSourceError(.invalidDecisions, error.description, file: path, schemaFileError: error)
        }
    }
}
