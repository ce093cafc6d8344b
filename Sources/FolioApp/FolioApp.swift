public enum FolioApp {}
