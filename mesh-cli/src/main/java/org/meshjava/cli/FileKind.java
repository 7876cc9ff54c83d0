package org.meshjava.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import java.util.regex.Pattern;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.ReceiptException;

/**
 * The kinds of file the mesh commands read and write, recognised from a file's first line, so that
 * a command handed the wrong one can say what it looks like and which command reads it. Without
 * this, {@code mesh verify steward.key} answered with the decoder's word for the seed's bytes
 * ({@code NOT_CANONICAL_CBOR}), which tells a new user nothing about the mistake: the file was
 * never meant for that command.
 *
 * <p>A recognition is a guess from one line, and refusals word it as one ("looks like").
 */
enum FileKind {
  /** A key file: an Ed25519 seed as 64 hex digits ({@link KeyFile}). */
  KEY("a key file (an Ed25519 seed, 64 hex digits)", "mesh key show reads it"),
  /** A grant chain, one hex line, as the grant tools write it. */
  GRANT_CHAIN("a grant chain", "mesh grant show reads it"),
  /** A presentation of a grant for one request, one hex line. */
  PRESENTATION(
      "a grant presentation", "it goes in a request body as jcp_presentation (mesh grant present)"),
  /** A signed revocation, one hex line. */
  REVOCATION("a revocation", "mesh serve --revocations loads it"),
  /** Hex receipt envelopes, one a line. */
  ENVELOPES("receipt envelopes (one hex envelope a line)", "mesh verify reads them"),
  /** A steward's decision journal: one JSON record a line. */
  JOURNAL_RECORD(
      "a steward's journal (JSON records, one a line)", "mesh journal inspect|verify reads it"),
  /** A receipt's signed core as JSON, as {@code mesh demo} prints it. */
  RECEIPT_JSON(
      "a receipt as JSON",
      "mesh verify takes the hex envelope instead (a reply's usage.energy.envelope_hex)"),
  /** A served reply, whose {@code usage.energy.envelope_hex} carries the envelope. */
  REPLY_JSON(
      "a served reply (JSON)",
      "mesh verify takes the hex of its usage.energy.envelope_hex, one a line"),
  /** Some other JSON: a request body, a configuration, a pretty-printed receipt. */
  OTHER_JSON(
      "JSON", "the hex files mesh reads (keys, grants, envelopes) hold one hex value a line");

  private static final Pattern KEY_SEED = Pattern.compile("[0-9a-fA-F]{64}");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String looksLike;
  private final String readBy;

  FileKind(String looksLike, String readBy) {
    this.looksLike = looksLike;
    this.readBy = readBy;
  }

  /**
   * What a file whose first line is {@code line} most likely is, or empty when it is none of the
   * kinds (damage, or a file of some other program).
   */
  static Optional<FileKind> of(String line) {
    String s = line.strip();
    if (KEY_SEED.matcher(s).matches()) {
      // 32 bytes: no grant, presentation, revocation or envelope is that short.
      return Optional.of(KEY);
    }
    if (s.startsWith("{") || s.startsWith("[")) {
      return json(s);
    }
    return hex(s);
  }

  /** What a refusal says of a file of this kind: "looks like …; … reads it". */
  String looksLike() {
    return "looks like " + looksLike + "; " + readBy;
  }

  /**
   * The kind of a file whose first line is {@code line}, when it is recognised and not {@code
   * expected}: the file was meant for another command.
   */
  static Optional<FileKind> other(String line, FileKind expected) {
    return of(line).filter(k -> k != expected);
  }

  /**
   * For a refusal of a file that is not of {@code expected}: "it looks like …; … reads it" when the
   * first line of its {@code text} is of another kind, else empty.
   */
  static Optional<String> otherThan(FileKind expected, String text) {
    return text.lines()
        .filter(l -> !l.isBlank())
        .findFirst()
        .flatMap(first -> other(first, expected))
        .map(k -> "it " + k.looksLike());
  }

  /**
   * For a refusal of a file of a kind this enum does not list (a signed checkpoint): "it looks like
   * …; … reads it" when the first line of its {@code text} is of any kind listed, else empty.
   */
  static Optional<String> anyOf(String text) {
    return text.lines()
        .filter(l -> !l.isBlank())
        .findFirst()
        .flatMap(FileKind::of)
        .map(k -> "it " + k.looksLike());
  }

  private static Optional<FileKind> json(String s) {
    JsonNode node;
    try {
      node = JSON.readTree(s);
    } catch (JsonProcessingException e) {
      // A first line of "{" alone: JSON written over several lines.
      return Optional.of(OTHER_JSON);
    }
    if (!node.isObject()) {
      return Optional.of(OTHER_JSON);
    }
    if (node.has("seq") && node.path("entry").isObject()) {
      return Optional.of(JOURNAL_RECORD);
    }
    if (node.findValue("envelope_hex") != null) {
      return Optional.of(REPLY_JSON);
    }
    JsonNode receipt = node.path("receipt").isObject() ? node.get("receipt") : node;
    try {
      ReceiptJson.parse(receipt);
      return Optional.of(RECEIPT_JSON);
    } catch (ReceiptException | RuntimeException e) {
      return Optional.of(OTHER_JSON);
    }
  }

  private static Optional<FileKind> hex(String s) {
    try {
      GrantChain.fromHex(s);
      return Optional.of(GRANT_CHAIN);
    } catch (MalformedGrantException | RuntimeException e) {
      // Not a chain; try the next kind.
    }
    try {
      Presentation.fromHex(s);
      return Optional.of(PRESENTATION);
    } catch (MalformedGrantException | RuntimeException e) {
      // Not a presentation; try the next kind.
    }
    try {
      Revocation.fromHex(s);
      return Optional.of(REVOCATION);
    } catch (MalformedGrantException | RuntimeException e) {
      // Not a revocation; try the next kind.
    }
    try {
      Jcr1.open(Envelope.fromHex(s));
      return Optional.of(ENVELOPES);
    } catch (ReceiptException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
