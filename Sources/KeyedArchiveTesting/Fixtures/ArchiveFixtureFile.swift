#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import PropertyList

/// The forms a fixture file can take: the two property-list formats an archiver writes, and the
/// canonical JSON of `Docs/PlistJSON.md` (what `keyedarchive plist` prints), which reads as the
/// same archive and reviews well in a pull request.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveFixtureFormat: String, Hashable, Sendable, CaseIterable {
    /// A binary property list (`bplist00`), `.plist`.
    case binary
    /// An XML property list, `.xml`.
    case xml
    /// The canonical property-list JSON, `.json`: compared as the archive it stands for.
    case json

    /// The fixture format of an archive format.
    public init(_ format: ArchiveFormat) {
        switch format {
        case .binary: self = .binary
        case .xml: self = .xml
        }
    }

    /// The file extension a fixture named after its test gets: `plist`, `xml` or `json`.
    public var fileExtension: String {
        switch self {
        case .binary: return "plist"
        case .xml: return "xml"
        case .json: return "json"
        }
    }

    /// The format `bytes` are in, from their first bytes; nil when they look like none of them.
    public static func detect(_ bytes: [UInt8]) -> ArchiveFixtureFormat? {
        switch bytes.withUnsafeBytes({ PropertyListCodec.detectFormat($0) }) {
        case .binary: return .binary
        case .xml: return .xml
        case nil: return PropertyListJSONReader.looksLikeJSON(bytes) ? .json : nil
        }
    }

    /// `value` archived with `registry` in this format (for JSON: the canonical JSON of its
    /// binary archive, as `keyedarchive plist` prints it).
    /// - Throws: `ArchiveError` from the archiver, or from the JSON rendering.
    public func archive<T: ArchiveObjectEncodable>(_ value: T, registry: ArchiveRegistry, options: ArchiveWritingOptions = .default) throws(ArchiveError) -> [UInt8] {
        switch self {
        case .binary: return try KeyedArchiver.archive(value, registry: registry, format: .binary, options: options)
        case .xml: return try KeyedArchiver.archive(value, registry: registry, format: .xml, options: options)
        case .json:
            let binary = try KeyedArchiver.archive(value, registry: registry, format: .binary, options: options)
            do {
                return try PropertyListJSONRenderer.render(PropertyListCodec.decode(binary))
            } catch {
                throw ArchiveError(error)
            }
        }
    }
}

/// A failure to find, read, write or understand a fixture, as the one line an expectation reports.
public struct ArchiveFixtureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line: `fixture not found: PATH (resolved from …)`, `could not read the fixture PATH: …`.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// ``message``.
    public var description: String { message }
}

/// A fixture read from disk, in any of its formats: every expectation reads its fixture with
/// this, so a binary, XML or JSON file is accepted wherever one is.
public struct ArchiveFixtureFile: Sendable {
    /// Where it was read from.
    public let location: ArchiveFixtureLocation
    /// The file's bytes, as they are on disk.
    public let bytes: [UInt8]
    /// The file's format (a file of neither property-list format is taken for JSON, whose
    /// reader then names the fault).
    public let format: ArchiveFixtureFormat

    /// Reads the fixture at `location`.
    /// - Throws: ``ArchiveFixtureError``: `fixture not found: PATH (resolved from …)` when there
    ///   is no file there, `could not read the fixture PATH: …` when it cannot be read.
    public init(reading location: ArchiveFixtureLocation) throws(ArchiveFixtureError) {
        guard location.exists else { throw ArchiveFixtureError(location.notFoundMessage) }
        do {
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: location.path)))
        } catch {
            throw ArchiveFixtureError("could not read the fixture \(location.path): \(error.localizedDescription)")
        }
        self.location = location
        format = ArchiveFixtureFormat.detect(bytes) ?? .json
    }

    /// Bytes already in memory, taken for a file of `format` at `location` (what an
    /// expectation encoded, compared with the file there).
    init(made bytes: [UInt8], format: ArchiveFixtureFormat, location: ArchiveFixtureLocation) {
        self.bytes = bytes
        self.format = format
        self.location = location
    }

    /// The property list the file holds (for JSON: the one its text stands for).
    /// - Throws: `ArchiveError` with `ArchiveError/Code/invalidPropertyList` naming the fault.
    public func propertyList(options: ArchiveReadingOptions = .default) throws(ArchiveError) -> PropertyListValue {
        do {
            switch format {
            case .binary, .xml: return try PropertyListCodec.decode(bytes, options: options.propertyList)
            case .json: return try PropertyListJSONReader.read(bytes, options: options.propertyList)
            }
        } catch {
            throw ArchiveError(error)
        }
    }

    /// The archive's object graph.
    /// - Throws: `ArchiveError` for a file that is not a property list or not a keyed archive.
    public func graph(options: ArchiveReadingOptions = .default) throws(ArchiveError) -> ArchiveGraph {
        switch format {
        case .binary, .xml: return try ArchiveGraph(bytes: bytes, options: options)
        case .json: return try ArchiveGraph(propertyList: propertyList(options: options), options: options)
        }
    }

    /// The file as property-list bytes: its own for binary and XML, the binary property list
    /// its text stands for when it is JSON.
    /// - Throws: `ArchiveError` for a file that is not a property list.
    public func propertyListBytes(options: ArchiveReadingOptions = .default) throws(ArchiveError) -> [UInt8] {
        guard format == .json else { return bytes }
        let value = try propertyList(options: options)
        do {
            return try PropertyListCodec.encode(value, format: .binary)
        } catch {
            throw ArchiveError(error)
        }
    }
}
