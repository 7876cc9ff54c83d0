package org.meshjava.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
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

  /** The latest whole second an {@link Instant}, and so a grant's time, can hold. */
  private static final Instant LATEST = Instant.MAX.truncatedTo(ChronoUnit.SECONDS);

  private GrantFiles() {}

  static GrantChain readChain(InputFile path) throws CliException {
    String text = UserFile.readText(path, "file");
    try {
      return GrantChain.fromHex(text.strip());
    } catch (MalformedGrantException e) {
      String why = FileKind.otherThan(FileKind.GRANT_CHAIN, text).orElse(e.getMessage());
      throw new CliException(path + " is not a grant chain: " + why, e);
    }
  }

  static String readText(Path path) throws CliException {
    return UserFile.readText(path, "file");
  }

  static JsonNode readJson(Path path) throws CliException {
    return readJson(new InputFile.Named(path));
  }

  static JsonNode readJson(InputFile path) throws CliException {
    try {
      return JSON.readTree(UserFile.readText(path, "file"));
    } catch (IOException e) {
      throw new CliException(path + " is not JSON: " + why(e), e);
    }
  }

  /**
   * The parts of Jackson's messages that speak to a programmer, not to whoever wrote the file:
   * which parser feature would accept a comment or {@code NaN} (a setting the user cannot change)
   * and which constraint's getter holds a limit.
   */
  private static final java.util.regex.Pattern JACKSON_HINT =
      java.util.regex.Pattern.compile(
          ": enable `[A-Za-z_.]+` to allow|\\s*\\(not recognized as one since Feature '[A-Z_]+' not"
              + " enabled for parser\\)|, from `[A-Za-z.]+\\(\\)`");

  /**
   * Why text is not JSON, for a message: where and what, without the location Jackson appends,
   * whose source it prints as "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)".
   */
  static String why(IOException e) {
    if (!(e instanceof JsonProcessingException j)) {
      return UserFile.reason(e);
    }
    String what =
        JACKSON_HINT
            .matcher(
                j.getOriginalMessage().replaceFirst("\\s*\\(?(start marker )?at \\[Source.*", ""))
            .replaceAll("");
    JsonLocation at = j.getLocation();
    return at == null
        ? what
        : "line " + at.getLineNr() + ", column " + at.getColumnNr() + ": " + what;
  }

  /**
   * Writes {@code text} and a newline to {@code path}, replacing what is there whole: a script
   * waiting for the file ({@code mesh serve --port-file}, whose file from an earlier start is meant
   * to be replaced) never reads it empty. The files the grant tools write are not replaced without
   * {@code --force} ({@link UserFile#writeOutput}). Its folder must exist and is not made: {@code
   * mesh serve} checks that before it starts, and a folder removed while it started is refused here
   * too rather than made again where no script waits for the file.
   */
  static void writeLine(Path path, String text) throws CliException {
    if (Files.isDirectory(path)) {
      throw new CliException("cannot write " + path + ": it is a folder");
    }
    try {
      UserFile.writeWholeInFolder(path, (text + "\n").getBytes(StandardCharsets.UTF_8), true);
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

  /**
   * An ISO-8601 instant ({@code 2026-12-31T00:00:00Z}, or with an offset such as {@code +02:00},
   * converted to UTC) or a duration from now ({@code PT24H}).
   *
   * @throws CliException for other text, for a date and time with no zone (which instant it means
   *     depends on where the command runs), and for a duration that reaches past the latest instant
   */
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
      if (isLocalDateTime(text)) {
        throw new CliException(
            "'"
                + text
                + "' names no time zone: add Z for UTC (2026-12-31T00:00:00Z) or an offset"
                + " (2026-12-31T00:00:00+02:00)");
      }
      throw new CliException(
          "'"
              + text
              + "' is neither an instant like 2026-12-31T00:00:00Z nor a duration like PT24H");
    } catch (ArithmeticException | DateTimeException e) {
      // Duration.parse overflows, or now plus the duration passes Instant.MAX: without this the
      // user saw the bare "long overflow" of the exception.
      throw new CliException(
          "'" + text + "' reaches past the latest instant a grant can carry (" + LATEST + ")");
    }
  }

  /**
   * Returns {@code t}, or refuses it naming {@code flag} when it is before the epoch: grant and
   * revocation times are unsigned seconds from 1970 (SPEC 30 §2, §11), and the library's own
   * refusal would name its field, which the user never typed.
   */
  static Instant sinceEpoch(String flag, Instant t) throws CliException {
    if (t.isBefore(Instant.EPOCH)) {
      throw new CliException(
          flag + " (" + t + ") must not be before " + Instant.EPOCH + ", where grant time starts");
    }
    return t;
  }

  private static boolean isLocalDateTime(String text) {
    try {
      LocalDateTime.parse(text);
      return true;
    } catch (DateTimeParseException notOne) {
      return false;
    }
  }
}
