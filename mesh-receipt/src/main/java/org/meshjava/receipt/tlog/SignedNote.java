package org.meshjava.receipt.tlog;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;

/**
 * A C2SP signed note: a text ending in a newline, a blank line, then one signature line per signer.
 * Each Ed25519 signature is over the text's UTF-8 bytes exactly, so a log's signature and a
 * witness's cosignature sit side by side on the same note (the multi-signature form). Parsing
 * follows Go's {@code sumdb/note}: the signature block follows the last blank line, and the note
 * holds no ASCII control character besides newline. Immutable and thread-safe.
 *
 * @param text the signed text, ending in a newline
 * @param signatures the signature lines, at least one, at most {@value #MAX_SIGNATURES}
 */
public record SignedNote(String text, List<NoteSignature> signatures) {
  /** The most signature lines a note may carry (Go's limit). */
  public static final int MAX_SIGNATURES = 100;

  /**
   * Validates the text and copies the signatures.
   *
   * @throws IllegalArgumentException if the text is empty, does not end in a newline, holds another
   *     control character or a lone surrogate, or there are not 1 to {@value #MAX_SIGNATURES}
   *     signatures
   */
  public SignedNote {
    if (!isValidText(text)) {
      throw new IllegalArgumentException(
          "a note text ends in a newline and holds no other control character");
    }
    if (signatures.isEmpty() || signatures.size() > MAX_SIGNATURES) {
      throw new IllegalArgumentException("a note carries 1 to 100 signatures");
    }
    signatures = List.copyOf(signatures);
  }

  private static boolean isValidText(String text) {
    return !text.isEmpty()
        && text.endsWith("\n")
        && text.chars().noneMatch(c -> (c < 0x20 && c != '\n') || c == 0x7f)
        && StandardCharsets.UTF_8.newEncoder().canEncode(text);
  }

  /**
   * Signs {@code text} with {@code key} under {@code name}: a note with that one signature line,
   * which {@link #verify}es against {@code new NoteVerifierKey(name, key.verificationKey())}.
   *
   * @throws IllegalArgumentException if {@code name} is not a valid key name or {@code text} not a
   *     valid note text (see the constructor)
   */
  public static SignedNote sign(String text, String name, SigningKey key) {
    NoteVerifierKey verifier = new NoteVerifierKey(name, key.verificationKey());
    byte[] signature = key.sign(text.getBytes(StandardCharsets.UTF_8));
    return new SignedNote(text, List.of(new NoteSignature(name, verifier.keyHash(), signature)));
  }

  /** Returns this note with one more signature line, such as a witness's cosignature. */
  public SignedNote with(NoteSignature signature) {
    List<NoteSignature> all = new ArrayList<>(signatures);
    all.add(signature);
    return new SignedNote(text, all);
  }

  /** Returns the note's text form: text, blank line, signature lines. */
  public String encoded() {
    StringBuilder out = new StringBuilder(text).append('\n');
    for (NoteSignature s : signatures) {
      out.append(s.line());
    }
    return out.toString();
  }

  /**
   * Parses a note's text form. Signatures are not checked; call {@link #verify}.
   *
   * @throws LogException {@code MALFORMED_NOTE} when it is not a signed note
   */
  public static SignedNote parse(String note) throws LogException {
    if (note.chars().anyMatch(c -> (c < 0x20 && c != '\n') || c == 0x7f)) {
      throw malformed("the note holds a control character");
    }
    if (!StandardCharsets.UTF_8.newEncoder().canEncode(note)) {
      throw malformed("the note is not valid Unicode (a lone surrogate)");
    }
    int split = note.lastIndexOf("\n\n");
    if (split < 0 || !note.endsWith("\n")) {
      throw malformed("no signature block after a blank line");
    }
    String text = note.substring(0, split + 1);
    String block = note.substring(split + 2);
    if (block.isEmpty()) {
      throw malformed("no signature lines");
    }
    String[] lines = block.substring(0, block.length() - 1).split("\n", -1);
    if (lines.length > MAX_SIGNATURES) {
      throw malformed("more than " + MAX_SIGNATURES + " signatures");
    }
    List<NoteSignature> signatures = new ArrayList<>();
    for (String line : lines) {
      signatures.add(NoteSignature.parseLine(line));
    }
    return new SignedNote(text, signatures);
  }

  /**
   * Checks that {@code key} signed this note: a line carrying its name and key hash whose Ed25519
   * signature verifies over the text.
   *
   * @throws LogException {@code UNSIGNED} when no line carries the key's name and hash; {@code
   *     BAD_SIGNATURE} when such a line's signature does not verify
   */
  public void verify(NoteVerifierKey key) throws LogException {
    NoteSignature line = signatureBy(key);
    try {
      key.key().verify(text.getBytes(StandardCharsets.UTF_8), line.signature());
    } catch (SignatureException e) {
      throw new LogException(
          LogException.Reason.BAD_SIGNATURE, "the signature by " + key.name() + " does not verify");
    }
  }

  /**
   * Returns the line carrying {@code key}'s name and key hash, without checking its signature (call
   * {@link #verify} for that): how a log or a monitor picks a witness's cosignature out of one note
   * to add it to another with {@link #with}.
   *
   * @throws LogException {@code UNSIGNED} when there is none
   */
  public NoteSignature signatureBy(NoteVerifierKey key) throws LogException {
    int hash = key.keyHash();
    for (NoteSignature s : signatures) {
      if (s.keyHash() == hash && s.name().equals(key.name())) {
        return s;
      }
    }
    throw new LogException(LogException.Reason.UNSIGNED, "no signature by " + key.name());
  }

  private static LogException malformed(String detail) {
    return new LogException(LogException.Reason.MALFORMED_NOTE, detail);
  }
}
