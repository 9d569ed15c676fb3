"""The page model: parsing a page into exact slices and rendering it back (``markdown``), the
markdown parsers behind it (``mdparse``), frontmatter edits (``fmsplice``), slugs and names
(``slugs``) and link resolution rules (``links``). Imports nothing else from gbrain but
``gbrain.errors``."""
