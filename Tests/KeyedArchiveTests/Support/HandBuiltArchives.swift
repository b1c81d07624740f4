import PropertyList

/// Archives built by hand, object by object, so that what they hold (which objects are shared,
/// what order things are stored in) is known by construction, not taken from our own writer.
/// A suite that conforms calls `Self.instance(…)`, `Self.archive(…)`.
protocol HandBuiltArchives {}

extension HandBuiltArchives {
    static func uid(_ value: Int) -> PropertyListValue { .uid(PropertyListUID(UInt64(value))) }

    /// A class dictionary (`$classname`, `$classes`) for `chain`, class name first.
    static func classDictionary(_ chain: [String]) -> PropertyListValue {
        .dictionary(PropertyListDictionary(entries: [
            .init(key: "$classname", value: .string(chain[0])),
            .init(key: "$classes", value: .array(chain.map { .string($0) })),
        ]))
    }

    /// An object whose class dictionary is `classUID`, with `fields` in this order.
    static func instance(_ classUID: Int, _ fields: [(String, PropertyListValue)]) -> PropertyListValue {
        .dictionary(PropertyListDictionary(entries: fields.map { .init(key: $0.0, value: $0.1) } + [.init(key: "$class", value: uid(classUID))]))
    }

    /// The archive's property list: `objects` are `$objects` from #1 on (`$null` is #0).
    static func archive(_ objects: [PropertyListValue], top: [(String, PropertyListValue)] = [("root", uid(1))]) -> PropertyListValue {
        .dictionary(PropertyListDictionary(entries: [
            .init(key: "$version", value: 100_000),
            .init(key: "$archiver", value: "NSKeyedArchiver"),
            .init(key: "$top", value: .dictionary(PropertyListDictionary(entries: top.map { .init(key: $0.0, value: $0.1) }))),
            .init(key: "$objects", value: .array(["$null"] + objects)),
        ]))
    }

    /// The same archive as binary property-list bytes.
    static func archiveBytes(_ objects: [PropertyListValue], top: [(String, PropertyListValue)] = [("root", uid(1))]) throws -> [UInt8] {
        try PropertyListCodec.encode(archive(objects, top: top), format: .binary)
    }
}
