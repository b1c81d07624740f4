#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// How typed decoding reads an archive: in place, from the binary bytes (the fast path), or
/// through the value tree and the generic graph (the usual path), and why.
///
/// Both paths give the same values and the same errors; the usual path takes about twice the
/// time and memory of a large decode. Every binary archive NSKeyedArchiver and this package
/// write is read in place; `KeyedUnarchiver.readingPath(of:options:)` says so of a file, so a
/// service can check that the archives it receives do not take the slow path.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveReadingPath: Hashable, Sendable {
    /// Read in place, from the binary bytes.
    case inPlace
    /// Read through the value tree and the generic graph, for `reason`.
    case graph(Reason)

    /// Why an archive is not read in place (Docs/Security.md, "What takes the usual path").
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// An XML property list (or not a property list at all): XML is always read as a tree.
        case notBinary
        /// The file is faulty: the usual path reads it to name the fault, with its place.
        case faulty
        /// The file is 4 GiB or larger: the in-place reader keeps offsets in 32 bits.
        case fileOf4GiBOrMore
        /// `propertyList.maximumDepth` (``ArchiveReadingOptions/propertyList``) is below 4, the depth of every archive's
        /// own structure: the usual path reports the limit.
        case depthLimitBelowFour
        /// The root dictionary holds keys other than exactly `$archiver`, `$version`, `$top`
        /// and `$objects`.
        case rootKeys
        /// A `$top` value is an array or a dictionary rather than a reference or a scalar.
        case containerInTop
        /// An `$objects` entry is an array, a set, or a dictionary with neither `$class` nor
        /// `$classname`: a container stored without a class.
        case classlessContainer
        /// A field of an object holds a dictionary or a set, or an array holding anything but
        /// references and scalars.
        case nestedContainerInField
        /// An object stores one key twice: typed decoding refuses it on the usual path, which
        /// names the key.
        case duplicateKey
        /// None of the above: the in-place reader declined a file the usual path reads. No
        /// archive is known to take this; the tests require that none does.
        case unclassified
    }
}

extension KeyedUnarchiver {
    /// Whether typed decoding of `bytes` under `options` reads them in place or through the
    /// graph, and why. It validates the file as a decode would (a faulty file is
    /// ``ArchiveReadingPath/Reason/faulty``), so it costs about as much as building the graph.
    public static func readingPath(of bytes: [UInt8], options: ArchiveReadingOptions = .default) -> ArchiveReadingPath {
        if bytes.withUnsafeBytes({ readsInPlace($0, options: options) }) { return .inPlace }
        return .graph(ArchiveReadingPath.reason(bytes, options: options))
    }

    /// The same for the archive in `data`, read in place (copied only to say why not).
    public static func readingPath(of data: Data, options: ArchiveReadingOptions = .default) -> ArchiveReadingPath {
        if data.withUnsafeBytes({ readsInPlace($0, options: options) }) { return .inPlace }
        return .graph(ArchiveReadingPath.reason([UInt8](data), options: options))
    }

    /// The in-place reader's validation alone: no table is kept, so no copy of its offsets.
    private static func readsInPlace(_ raw: UnsafeRawBufferPointer, options: ArchiveReadingOptions) -> Bool {
        var validator = BinaryArchiveValidator(raw: raw, options: options)
        return validator.validate(keepingOffsets: false) != nil
    }

    /// Whether this unarchiver reads its archive in place (the binary fast path).
    public var readsInPlace: Bool { session.binaryTable != nil }
}

extension ArchiveReadingPath {
    /// Why the in-place reader declined `bytes`, found independently of it: from the file's
    /// shape as the usual path reads it.
    static func reason(_ bytes: [UInt8], options: ArchiveReadingOptions) -> Reason {
        guard bytes.starts(with: BinaryPropertyListFormat.magic) else { return .notBinary }
        guard bytes.count <= Int(UInt32.max) else { return .fileOf4GiBOrMore }
        guard options.propertyList.maximumDepth > 3 else { return .depthLimitBelowFour }
        guard (try? ArchiveGraph(bytes: bytes, options: options)) != nil,
              case .dictionary(let root)? = try? PropertyListCodec.decode(bytes, options: options.propertyList) else { return .faulty }
        let headerKeys: Set<String> = [ArchiveKeys.archiver, ArchiveKeys.version, ArchiveKeys.top, ArchiveKeys.objects]
        guard root.count == 4, Set(root.entries.map(\.key)) == headerKeys else { return .rootKeys }
        if case .dictionary(let top)? = root[ArchiveKeys.top], top.entries.contains(where: { $0.value.isContainer }) { return .containerInTop }
        guard case .array(let objects)? = root[ArchiveKeys.objects] else { return .faulty }
        for object in objects.dropFirst() {
            guard object.isContainer else { continue }
            guard case .dictionary(let fields) = object, fields[ArchiveKeys.classKey] != nil || fields[ArchiveKeys.className] != nil else {
                return .classlessContainer
            }
            for field in fields.entries {
                switch field.value {
                case .dictionary, .set: return .nestedContainerInField
                case .array(let elements) where elements.contains(where: \.isContainer): return .nestedContainerInField
                default: continue
                }
            }
            if Set(fields.entries.map { ExactString($0.key) }).count != fields.count { return .duplicateKey }
        }
        return .unclassified
    }
}

private extension PropertyListValue {
    var isContainer: Bool {
        switch self {
        case .array, .dictionary, .set: return true
        default: return false
        }
    }
}
