import PropertyList

/// Generated inputs, deterministic so that every run measures the same bytes.
enum Workloads {
    /// A keyed-archive-shaped plist: `$objects` holding many small object dictionaries with
    /// UIDs, class references, strings and numbers, like a large model graph written by
    /// NSKeyedArchiver. `objectCount` objects give about 25 bytes per object.
    static func keyedArchiveShape(objectCount: Int) -> PropertyListValue {
        var objects: [PropertyListValue] = ["$null"]
        objects.reserveCapacity(objectCount + 8)
        let classDescriptor: PropertyListValue = ["$classname": "Airplane", "$classes": ["Airplane", "NSObject"]]
        objects.append(classDescriptor)
        var index = 2
        while objects.count < objectCount {
            let entry: PropertyListValue = [
                "$class": .uid(PropertyListUID(1)),
                "model": .uid(PropertyListUID(UInt64(index + 1))),
                "registrationNumber": .uid(PropertyListUID(UInt64(index + 2))),
                "airframeHours": .int(index * 37),
                "engineHorsepower": .int(180 + index % 200),
                "owner": .uid(PropertyListUID(UInt64(index % 1000 + 2))),
            ]
            objects.append(entry)
            objects.append(.string("Cessna \(index % 50)"))
            objects.append(.string("N\(index)XY"))
            index += 3
        }
        return [
            "$version": 100000,
            "$archiver": "NSKeyedArchiver",
            "$top": ["root": .uid(PropertyListUID(2))],
            "$objects": .array(objects),
        ]
    }

    /// A general plist: nested dictionaries and arrays of every scalar type.
    static func generalPlist(records: Int) -> PropertyListValue {
        var items: [PropertyListValue] = []
        items.reserveCapacity(records)
        for index in 0..<records {
            items.append([
                "identifier": .int(index),
                "name": .string("Record number \(index) — ünïcödé \(index % 97)"),
                "score": .double(Double(index) * 0.731),
                "ratio": .float(Float(index % 1000) / 7),
                "active": .bool(index % 3 == 0),
                "created": .date(PropertyListDate(secondsSinceReferenceDate: Double(index) * 3600)),
                "payload": .data((0..<24).map { UInt8(truncatingIfNeeded: index &+ $0) }),
                "tags": ["alpha", .string("tag\(index % 13)"), .int(index % 7)],
            ])
        }
        return ["version": 1, "items": .array(items)]
    }
}
