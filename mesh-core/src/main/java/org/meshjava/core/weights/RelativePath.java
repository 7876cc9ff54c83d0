package org.meshjava.core.weights;

/** The rule a file's path inside a model directory must meet. Package-private. */
final class RelativePath {
  private RelativePath() {}

  /** Returns what is wrong with {@code path}, or null if it is a confined relative path. */
  static String problem(String path) {
    if (path == null || path.isEmpty()) {
      return "empty";
    }
    if (path.startsWith("/")) {
      return "absolute";
    }
    if (path.indexOf('\\') >= 0 || path.indexOf(':') >= 0) {
      return "'\\' and ':' are not allowed (write paths with '/')";
    }
    if (path.chars().anyMatch(Character::isISOControl)) {
      return "control character";
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        return "empty, '.' or '..' segment";
      }
    }
    return null;
  }
}
