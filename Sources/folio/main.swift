print("folio")
