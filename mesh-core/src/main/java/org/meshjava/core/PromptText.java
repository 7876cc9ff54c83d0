package org.meshjava.core;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The prompt as bytes, before any engine has tokenized it (§3.1): what {@code prompt_hash}
 * addresses. An application hands the steward a prompt text and the steward asks the engine it
 * routed to for the token payload ({@link ServingEngine#tokenizer()}), so a request id never
 * depends on which engine serves it. Immutable; the bytes are copied in and out.
 */
public final class PromptText {
  private final byte[] bytes;

  private PromptText(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The prompt of exactly these bytes. */
  public static PromptText of(byte[] bytes) {
    return new PromptText(Objects.requireNonNull(bytes, "bytes").clone());
  }

  /**
   * The prompt of {@code text} in UTF-8.
   *
   * @throws IllegalArgumentException if the text holds an unpaired surrogate, which has no UTF-8
   *     form (a replacement would make the hash address other bytes than the caller meant)
   */
  public static PromptText of(String text) {
    Objects.requireNonNull(text, "text");
    try {
      ByteBuffer b =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(text));
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return new PromptText(out);
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("the prompt text holds an unpaired surrogate", e);
    }
  }

  /** A copy of the bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** How many bytes: the byte-level token count a request declares when it has no better one. */
  public int length() {
    return bytes.length;
  }

  /** The request's {@code prompt_hash}: the content id of the bytes. */
  public ContentId hash() {
    return ContentId.ofBytes(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptText other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "PromptText[" + bytes.length + " bytes, " + hash() + "]";
  }
}
