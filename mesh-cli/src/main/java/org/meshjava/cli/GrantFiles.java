package org.meshjava.cli;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.MalformedGrantException;

/** Reading and writing the grant tools' files: chains and presentations as one hex line. */
final class GrantFiles {
  /**
   * Strict, as the HTTP binding reads a body: a duplicate key or text after the value is refused
   * rather than read one of two ways (a configuration's second {@code "port"} silently winning).
   */
  static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private GrantFiles() {}

  static GrantChain readChain(Path path) throws CliException {
    try {
      return GrantChain.fromHex(readText(path).strip());
    } catch (MalformedGrantException e) {
      throw new CliException(path + " is not a grant chain: " + e.getMessage(), e);
    }
  }

  static String readText(Path path) throws CliException {
    return UserFile.readText(path, "file");
  }

  static JsonNode readJson(Path path) throws CliException {
    try {
      return JSON.readTree(readText(path));
    } catch (IOException e) {
      throw new CliException(path + " is not JSON: " + e.getMessage(), e);
    }
  }

  static void writeLine(Path path, String text) throws CliException {
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(path, text + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CliException("cannot write " + path + ": " + UserFile.reason(e), e);
    }
  }

  static DidKey did(String text) throws CliException {
    try {
      return DidKey.parse(text);
    } catch (DidKeyException e) {
      throw new CliException("'" + text + "' is not a did:key: " + e.getMessage(), e);
    }
  }

  /**
   * Returns {@code value}, or refuses it naming the flag: the library's own message would name its
   * field ({@code budgetUj}), which the user never typed.
   */
  static long nonNegative(String flag, long value) throws CliException {
    if (value < 0) {
      throw new CliException(flag + " must be zero or more, not " + value);
    }
    return value;
  }

  /** An ISO-8601 instant ({@code 2026-12-31T00:00:00Z}) or a duration from now ({@code PT24H}). */
  static Instant when(String text, Instant now) throws CliException {
    try {
      if (text.equals("now")) {
        return now;
      }
      if (text.startsWith("P") || text.startsWith("p")) {
        return now.plus(Duration.parse(text));
      }
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new CliException(
          "'"
              + text
              + "' is neither an instant like 2026-12-31T00:00:00Z nor a duration like PT24H");
    }
  }
}
