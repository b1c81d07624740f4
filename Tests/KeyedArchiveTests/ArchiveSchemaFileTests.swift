import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The schema file (`ArchiveSchema.jsonDescription`, read back by `init(jsonFile:)`): what it
/// says, read by Foundation's JSON reader; byte-identical output over the Apple corpus across
/// runs, input orders, merges and write → read → write; and a mutation test of the reader.
@Suite struct ArchiveSchemaFileTests {
    static func fleetSchema() throws -> ArchiveSchema {
        try ArchiveSchema(archives: [try ArchiveSchemaTests.fleet()])
    }

    /// The fleet's file, read by Foundation's `JSONSerialization` (not our reader), states the
    /// counts the schema holds, with the members sorted and the format named.
    @Test func fleetFileSaysWhatTheSchemaHolds() throws {
        let schema = try Self.fleetSchema()
        let text = schema.jsonDescription
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["format"] as? String == "keyedarchive-schema")
        #expect(document["version"] as? Int == 1)
        #expect(document["archives"] as? Int == 1)
        #expect(document["objects"] as? Int == schema.objectCount)
        let classes = try #require(document["classes"] as? [[String: Any]])
        #expect(classes.map { $0["name"] as? String ?? "" } == schema.classes.map(\.name).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        for type in schema.classes {
            let entry = try #require(classes.first { $0["name"] as? String == type.name })
            #expect(entry["instances"] as? Int == type.instanceCount)
            #expect(entry["shared"] as? Int == type.sharedCount)
            #expect(Set((entry["chains"] as? [[String]] ?? []).map { $0.joined(separator: "<") }) == Set(type.chains.map { $0.joined(separator: "<") }))
            let keys = try #require(entry["keys"] as? [[String: Any]])
            #expect(Set(keys.map { $0["key"] as? String ?? "" }) == Set(type.keys.map(\.storedKey)))
            for key in type.keys {
                let found = try #require(keys.first { $0["key"] as? String == key.storedKey })
                #expect(found["present"] as? Int == key.presentCount)
                let kinds = found["kinds"] as? [[String: Any]] ?? []
                #expect(kinds.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == key.presentCount)
            }
        }
        // A class key per line, so that a review shows each changed key alone.
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0 == #"        {"key": "engineHorsepower", "present": 2, "kinds": [{"kind": "int8", "count": 1}, {"kind": "int16", "count": 1}]},"# })
        #expect(lines.contains { $0 == #"        {"key": "licenseDate", "present": 3, "kinds": [{"kind": "$null", "count": 1}, {"class": "NSDate", "count": 2}]},"# })
    }

    /// Write → read → write gives the same bytes, and what is read back holds the same
    /// observations (classes, chains, keys, kinds, contents) as the schema written.
    @Test func fleetRoundTripsThroughTheFile() throws {
        let schema = try Self.fleetSchema()
        let read = try ArchiveSchema(jsonFile: Array(schema.jsonDescription.utf8))
        #expect(read.jsonDescription == schema.jsonDescription)
        #expect(read.archiveCount == 1 && read.objectCount == schema.objectCount)
        for type in schema.classes {
            let back = try #require(read.class(named: type.name))
            #expect(back.instanceCount == type.instanceCount && back.sharedCount == type.sharedCount)
            #expect(back.chains == type.chains)
            #expect(back.superclass == type.superclass)
            for key in type.keys {
                let other = try #require(back.keys.first { $0.storedKey == key.storedKey })
                #expect(other.presentCount == key.presentCount)
                #expect(other.kinds.counts == key.kinds.counts)
                #expect(other.contents.map(\.className).sorted() == key.contents.map(\.className).sorted())
                for contents in key.contents {
                    let back = other.contents.first { $0.className == contents.className }
                    #expect(back?.elements.counts == contents.elements.counts && back?.keys.counts == contents.keys.counts)
                }
            }
        }
        // Generated-code declarations are worked out again from the observations.
        let airplane = try #require(read.class(named: "Airplane"))
        #expect(Set(airplane.declaredKeys.map(\.storedKey)) == ["model", "registrationNumber", "airframeHours", "owner"])
    }

    /// Merging: the schema of two archives is the schema of one merged with the other's file,
    /// in either order, counts added up.
    @Test func mergingFilesAddsCounts() throws {
        let binary = try ArchiveSchemaTests.fleet()
        let xml = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.xml")))
        let both = try ArchiveSchema(archives: [binary, xml])
        let fileOfXML = try ArchiveSchema(jsonFile: Array(try ArchiveSchema(archives: [xml]).jsonDescription.utf8))
        let merged = ArchiveSchema(graphs: [try ArchiveGraph(bytes: binary)], schemas: [fileOfXML])
        let mergedFiles = ArchiveSchema(graphs: [], schemas: [fileOfXML, try Self.fleetSchema()])
        #expect(merged.jsonDescription == both.jsonDescription)
        #expect(mergedFiles.jsonDescription == both.jsonDescription)
        #expect(both.class(named: "Glider")?.instanceCount == 4)
        #expect(both.archiveCount == 2)
    }

    /// Over the whole Apple corpus: byte-identical across two runs, across input orders, after
    /// write → read → write, and when half the corpus comes in as a schema file.
    @Test func corpusFileIsDeterministic() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        let graphs = try ArchiveFixtures.entries.map { try ArchiveGraph(bytes: try ArchiveFixtures.bytes($0)) }
        #expect(graphs.count > 200)
        let first = ArchiveSchema(graphs: graphs).jsonDescription
        #expect(ArchiveSchema(graphs: graphs).jsonDescription == first)
        #expect(ArchiveSchema(graphs: graphs.reversed()).jsonDescription == first)
        let read = try ArchiveSchema(jsonFile: Array(first.utf8))
        #expect(read.jsonDescription == first)
        let half = graphs.count / 2
        let halfFile = try ArchiveSchema(jsonFile: Array(ArchiveSchema(graphs: Array(graphs[..<half])).jsonDescription.utf8))
        #expect(ArchiveSchema(graphs: Array(graphs[half...]), schemas: [halfFile]).jsonDescription == first)
        // Each archive's own file reads back to the same bytes too.
        for (entry, graph) in zip(ArchiveFixtures.entries, graphs) {
            let text = ArchiveSchema(graphs: [graph]).jsonDescription
            let back = try ArchiveSchema(jsonFile: Array(text.utf8))
            #expect(back.jsonDescription == text, "\(entry)")
        }
    }

    // MARK: The reader's refusals

    static func error(_ text: String) -> ArchiveSchemaFileError? {
        do {
            _ = try ArchiveSchema(jsonFile: Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    static let minimal = #"{"format": "keyedarchive-schema", "version": 1, "archives": 1, "objects": 2, "top": [{"key": "root", "present": 1, "kinds": [{"class": "Pilot", "count": 1}]}], "classes": [{"name": "Pilot", "instances": 1, "shared": 0, "chains": [["Pilot", "NSObject"]], "keys": [{"key": "name", "present": 1, "kinds": [{"kind": "NSString", "count": 1}]}]}, {"name": "NSObject", "instances": 0, "shared": 0, "chains": [], "keys": []}]}"#

    @Test func refusalsAreTypedAndPlaced() throws {
        #expect(Self.error(Self.minimal) == nil)
        let syntax = try #require(Self.error("{\"format\": \"keyedarchive-schema\",\n \"version\": 1,,}"))
        #expect(syntax.code == .invalidJSON)
        #expect(syntax.propertyListError?.description.contains("line 2") == true, "\(syntax)")
        #expect(Self.error("[1]")?.code == .notASchema)
        #expect(Self.error(#"{"name": "x"}"#)?.code == .notASchema)
        #expect(Self.error(#"{"format": "keyedarchive-schema", "version": 2}"#) == ArchiveSchemaFileError(.unsupportedVersion, "", path: "version"))
        #expect(Self.error(#"{"format": "keyedarchive-schema", "version": 99999999999999999999999}"#)?.code == .unsupportedVersion)
        #expect(Self.error(#"{"format": "keyedarchive-schema", "version": 0}"#)?.code == .invalidField)
        #expect(Self.error(#"{"format": "keyedarchive-schema", "version": "1"}"#)?.code == .invalidField)
        func mutated(_ from: String, _ to: String) -> ArchiveSchemaFileError? {
            let text = Self.minimal.replacingOccurrences(of: from, with: to)
            #expect(text != Self.minimal, "\(from) not in the minimal file")
            return Self.error(text)
        }
        #expect(mutated(#""present": 1, "kinds": [{"kind": "NSString""#, #""present": 2, "kinds": [{"kind": "NSString""#)
                == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].keys[0].present"))
        #expect(mutated(#"{"kind": "NSString", "count": 1}"#, #"{"kind": "NSString", "count": 2}"#)
                == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].keys[0].kinds"))
        #expect(mutated(#"{"kind": "NSString", "count": 1}"#, #"{"kind": "NSStrung", "count": 1}"#)
                == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].keys[0].kinds[0].kind"))
        #expect(mutated(#"{"kind": "NSString", "count": 1}"#, #"{"kind": "NSString", "class": "X", "count": 1}"#)
                == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].keys[0].kinds[0]"))
        #expect(mutated(#""objects": 2"#, #""objects": -2"#) == ArchiveSchemaFileError(.invalidField, "", path: "objects"))
        #expect(mutated(#""objects": 2"#, #""objects": 2, "extra": true"#)?.code == .invalidField)
        #expect(mutated(#""objects": 2"#, #""objects": 2, "objects": 3"#)?.code == .invalidField)
        #expect(mutated(#"["Pilot", "NSObject"]"#, #"["Pilot", "NSObjekt"]"#) == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].chains[0]"))
        #expect(mutated(#"["Pilot", "NSObject"]"#, #"["Pilot2", "NSObject"]"#) == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].chains[0]"))
        #expect(mutated(#""name": "NSObject""#, #""name": "Pilot""#) == ArchiveSchemaFileError(.invalidField, "", path: "classes[1].name"))
        #expect(mutated(#""shared": 0, "chains": [["Pilot""#, #""shared": 2, "chains": [["Pilot""#) == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].shared"))
        #expect(mutated(#""present": 1, "kinds": [{"class": "Pilot""#, #""present": 3, "kinds": [{"class": "Pilot""#) == ArchiveSchemaFileError(.invalidField, "", path: "top[0].present"))
        #expect(mutated(#""version": 1,"#, #""version": 1, "archives": null,"#)?.code == .invalidJSON)
        #expect(mutated(#""objects": 2"#, #""objects": 2.5"#)?.code == .invalidJSON)
        let contents = #", "contents": [{"class": "NSArray", "elements": []}]}"#
        #expect(mutated(#""count": 1}]}]}, {"name": "NSObject""#, #""count": 1}]"# + contents + #"]}, {"name": "NSObject""#)
                == ArchiveSchemaFileError(.invalidField, "", path: "classes[0].keys[0].contents[0].class"))
        // Text from the file is escaped in the message: a hostile name cannot drive a terminal.
        let hostile = try #require(mutated(#"["Pilot", "NSObject"]"#, #"["Pilot", "\u001b[2J"]"#))
        #expect(!hostile.description.unicodeScalars.contains { $0.value < 0x20 })
    }

    // MARK: Mutation test

    /// Thousands of damaged schema files, byte-level and value-level: each is either read (and
    /// then writing what was read and reading it again gives the same bytes: the reader accepts
    /// only what it can stand behind) or refused with an `ArchiveSchemaFileError` — the typed
    /// throw makes any other error impossible, and a crash or trap fails the whole run.
    @Test func mutatedFilesAreReadOrRefused() throws {
        let base = Array(try Self.fleetSchema().jsonDescription.utf8)
        let document = try PropertyListJSONReader.read(base)
        var generator = ArchiveValueFoundationTests.Generator(state: 33)
        var accepted = 0
        var codes: [String: Int] = [:]
        func check(_ bytes: [UInt8], _ label: String) {
            do {
                let schema = try ArchiveSchema(jsonFile: bytes)
                accepted += 1
                let written = schema.jsonDescription
                let again = try ArchiveSchema(jsonFile: Array(written.utf8))
                #expect(again.jsonDescription == written, "\(label)")
            } catch {
                codes[error.code.rawValue, default: 0] += 1
                #expect(!error.description.isEmpty)
            }
        }
        let interesting: [UInt8] = Array("{}[]\",:0123456789-e.tfn\\ ".utf8) + [0x00, 0x1B, 0xC3, 0xFF]
        for round in 0..<1500 {
            var bytes = base
            switch round % 5 {
            case 0:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = interesting.randomElement(using: &generator) ?? 0
            case 1:
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            case 2:
                let start = Int.random(in: 0..<bytes.count, using: &generator)
                bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...40, using: &generator)))
            case 3:
                let start = Int.random(in: 0..<bytes.count, using: &generator)
                let length = min(bytes.count - start, Int.random(in: 1...80, using: &generator))
                let insertAt = Int.random(in: 0...bytes.count, using: &generator)
                bytes.insert(contentsOf: bytes[start..<(start + length)], at: insertAt)
            default:
                bytes = Array(try PropertyListJSONRenderer.renderString(Self.mutate(document, using: &generator)).utf8)
            }
            check(bytes, "round \(round)")
        }
        print("schema file mutations: \(accepted) read, refused: \(codes.sorted { $0.key < $1.key })")
        // Both outcomes happen, and the refusals are of several kinds.
        #expect(accepted > 10)
        #expect(codes.keys.count >= 2, "\(codes)")
        #expect(codes.values.reduce(0, +) > 1000)
    }

    /// The document with one value somewhere replaced, removed or added to.
    static func mutate(_ value: PropertyListValue, using generator: inout ArchiveValueFoundationTests.Generator) -> PropertyListValue {
        let replacements: [PropertyListValue] = [
            .integer(PropertyListInteger(Int64.max)), .integer(PropertyListInteger(-1)), .int(0), .int(1 << 49), .string(""),
            .string("NSObject"), .string("int8"), .bool(true), .array([]), .dictionary(PropertyListDictionary()),
            .string("\u{202E}x"), .string("$null"), .int(3),
        ]
        func walk(_ value: PropertyListValue, depth: Int) -> PropertyListValue {
            switch value {
            case .dictionary(let dictionary) where !dictionary.isEmpty:
                var entries = dictionary.entries
                let index = Int.random(in: 0..<entries.count, using: &generator)
                switch Int.random(in: 0..<8, using: &generator) {
                case 0: entries.remove(at: index)
                case 1: entries.append(PropertyListDictionary.Entry(key: entries[index].key, value: entries[index].value))
                case 2: entries.append(PropertyListDictionary.Entry(key: "unknown", value: .int(1)))
                case 3: entries[index].value = replacements.randomElement(using: &generator) ?? .int(0)
                default: entries[index].value = walk(entries[index].value, depth: depth + 1)
                }
                return .dictionary(PropertyListDictionary(entries: entries))
            case .array(var items) where !items.isEmpty:
                let index = Int.random(in: 0..<items.count, using: &generator)
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: items.remove(at: index)
                case 1: items.append(items[index])
                case 2: items[index] = replacements.randomElement(using: &generator) ?? .int(0)
                default: items[index] = walk(items[index], depth: depth + 1)
                }
                return .array(items)
            default:
                return replacements.randomElement(using: &generator) ?? value
            }
        }
        return walk(value, depth: 0)
    }
}
