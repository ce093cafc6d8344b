import CPoppler
import FolioBook
import Foundation
import Synchronization

/// A PDF's form fields read and filled through poppler's form API. The values a reader filled
/// are kept by document (its handles are separate poppler documents: each is given the values
/// before it draws a page) and written only into a copy (`poppler_document_save` to a new file).
extension PDFDocument: FillableSource {
    /// The values filled so far, by document path.
    private static let filled = Mutex<[String: [Int: FormValue]]>([:])

    func fields(page index: Int) -> [FormField] {
        (try? withPage(index) { _, page, w, h in
            guard let mapping = poppler_page_get_form_field_mapping(page) else { return [] }
            defer { poppler_page_free_form_field_mapping(mapping) }
            let place = paperPlace(w, h)
            let fields = Self.items(of: mapping, as: PopplerFormFieldMapping.self).compactMap { m -> FormField? in
                guard let field = m.field, let kind = Self.kind(of: field) else { return nil }
                return FormField(id: Int(poppler_form_field_get_id(field)), name: Self.string(poppler_form_field_get_partial_name(field)) ?? "",
                                 box: place(Self.box(m.area, pageHeight: h)), kind: kind, readOnly: poppler_form_field_is_read_only(field) != 0)
            }
            // In reading order (poppler lists them last first).
            return fields.sorted { ($0.box.y0, $0.box.x0) < ($1.box.y0, $1.box.x0) }
        }) ?? []
    }

    /// What `field` holds, nil for a kind a reader does not fill (a push button, a signature).
    private static func kind(of field: OpaquePointer) -> FormField.Kind? {
        switch poppler_form_field_get_field_type(field) {
        case POPPLER_FORM_FIELD_TEXT:
            return .text(string(poppler_form_field_text_get_text(field)) ?? "")
        case POPPLER_FORM_FIELD_BUTTON where poppler_form_field_button_get_button_type(field) != POPPLER_FORM_BUTTON_PUSH:
            return .check(poppler_form_field_button_get_state(field) != 0)
        case POPPLER_FORM_FIELD_CHOICE:
            let n = min(Int(poppler_form_field_choice_get_n_items(field)), 1000)
            let items = (0..<max(n, 0)).map { string(poppler_form_field_choice_get_item(field, Int32($0))) ?? "" }
            return .choice(items, chosen: items.indices.first { poppler_form_field_choice_is_item_selected(field, Int32($0)) != 0 })
        default:
            return nil
        }
    }

    func fill(_ id: Int, with value: FormValue) {
        Self.filled.withLock { $0[path, default: [:]][id] = value }
    }

    /// Gives `doc` (a handle on this document) the values filled, before it draws a page.
    func applyFilled(to doc: OpaquePointer) {
        guard let values = Self.filled.withLock({ $0[path] }) else { return }
        for (id, value) in values {
            guard let field = poppler_document_get_form_field(doc, Int32(id)) else { continue }
            defer { g_object_unref(UnsafeMutableRawPointer(field)) }
            switch value {
            case let .text(text):
                let current = poppler_form_field_text_get_text(field).map { t in
                    defer { g_free(t) }
                    return String(cString: t)
                }
                if current != text { poppler_form_field_text_set_text(field, text) }
            case let .check(on):
                if (poppler_form_field_button_get_state(field) != 0) != on { poppler_form_field_button_set_state(field, on ? 1 : 0) }
            case let .choice(i):
                guard i < Int(poppler_form_field_choice_get_n_items(field)), poppler_form_field_choice_is_item_selected(field, Int32(i)) == 0 else { continue }
                poppler_form_field_choice_unselect_all(field)
                poppler_form_field_choice_select_item(field, Int32(i))
            }
        }
    }

    func saveFilled(to output: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let u = g_filename_to_uri(FileName.bytes(output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output), nil, &error) else {
            throw Self.failure(output, &error)
        }
        defer { g_free(u) }
        try withHandle { doc in
            applyFilled(to: doc)
            guard poppler_document_save(doc, u, &error) != 0 else { throw Self.failure(output, &error) }
        }
    }
}
