// The decode walked through in Docs/Schema.md §4, on the models generated from AbstractTree's
// compiled Core Data model (run.sh writes them as AbstractTreeModel.swift). Its output must be
// Tests/SchemaGeneration/example-output.txt.
import Foundation
import KeyedArchive
import Models

let example: (@Sendable (String) throws -> Void)? = { path in
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: AbstractTreeModel.registry)
    let model = try unarchiver.decode(AbstractTreeModel.NSManagedObjectModel.self, forKey: "root")
    for (name, entity) in model.nsEntities {
        print(name, entity.nsEntityName, entity.nsProperties.keys.sorted())
        for (property, description) in entity.nsProperties.sorted(by: { $0.key < $1.key }) {
            if let relationship = description as? AbstractTreeModel.NSRelationshipDescription {
                print(" ", property, "→", relationship.nsDestinationEntity?.nsEntityName ?? "?",
                      "inverse:", relationship.nsInverseRelationship?.nsPropertyName ?? "none")
            }
        }
        // The back-references are the very objects decoded elsewhere in the graph.
        let sameEntity = entity.nsProperties.values.allSatisfy { $0.nsEntity === entity }
        print("  each property's entity is this entity:", sameEntity)
    }
}
