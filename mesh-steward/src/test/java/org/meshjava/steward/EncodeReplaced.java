package org.meshjava.steward;

import java.util.function.BiFunction;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;

/**
 * The reference engine ({@link GrantFixture#ref}) whose tokenizer encodes a prompt given as text by
 * {@code encode}, handed the reference tokenizer and the prompt's bytes, and decodes by {@code
 * decode} where one is given; it names (and otherwise decodes) as the reference does. For tests of
 * what the steward makes of a tokenizer's answer.
 */
class EncodeReplaced extends ForwardingEngine {
  private final BiFunction<Tokenizer, byte[], TokenSequence> encode;
  private final BiFunction<Tokenizer, TokenSequence, String> decode;

  EncodeReplaced(BiFunction<Tokenizer, byte[], TokenSequence> encode) {
    this(encode, Tokenizer::decode);
  }

  /** Decoding by {@code decode} too, handed the reference tokenizer and the output. */
  EncodeReplaced(
      BiFunction<Tokenizer, byte[], TokenSequence> encode,
      BiFunction<Tokenizer, TokenSequence, String> decode) {
    super(GrantFixture.ref());
    this.encode = encode;
    this.decode = decode;
  }

  @Override
  public Tokenizer tokenizer() {
    Tokenizer real = super.tokenizer();
    return new Tokenizer() {
      @Override
      public String name() {
        return real.name();
      }

      @Override
      public TokenSequence encode(byte[] promptText) {
        return encode.apply(real, promptText);
      }

      @Override
      public String decode(TokenSequence output) {
        return decode.apply(real, output);
      }
    };
  }
}
