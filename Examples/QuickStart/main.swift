import KeyedArchive

final class Pilot: KeyedArchivable {
    let name: String
    let licenses: [String]

    init(name: String, licenses: [String]) {
        self.name = name
        self.licenses = licenses
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        licenses = try decoder.decode([String].self, forKey: "licenses")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(licenses, forKey: "licenses")
    }
}

// What an archive may create: Foundation's value classes (built in) and Pilot.
var registry = ArchiveRegistry()
registry.register(Pilot.self)

let bytes = try KeyedArchiver.archive(Pilot(name: "Amelia", licenses: ["SEP", "TMG"]), registry: registry)
let pilot = try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: registry)
print(pilot.name, pilot.licenses)          // Amelia ["SEP", "TMG"]

// Every fault is an ArchiveError: a stable code, the key path and object, and what to do.
do {
    _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: registry)
} catch {
    print(error.code, error.keyPath)       // classNotAllowed root
    print(error.message)                   // class Pilot is not admitted for [String] (…)
}
