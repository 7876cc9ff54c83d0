package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import java.io.IOException;
import org.meshjava.core.bytes.ByteValue;

/**
 * Writes a JSON string of a byte value's lowercase hex: the envelope's hex ({@code
 * usage.energy.envelope_hex}, about 2 KB in every served reply). Jackson writes a string by testing
 * each character for one it must escape; hex has none, so the UTF-8 generator ({@link JsonBytes})
 * is handed its bytes to copy as they are. The bytes are the same either way; a generator that does
 * not write UTF-8 bytes ({@code JsonNode.toString()}'s) gets an ordinary string.
 */
final class HexText {
  private HexText() {}

  /**
   * Writes {@code value}'s hex as a JSON string: lowercase hex by construction, nothing to escape.
   */
  static void write(JsonGenerator g, ByteValue value) throws IOException {
    if (g instanceof UTF8JsonGenerator) {
      // The digits as bytes at once: the hex string and then its bytes were two copies of 2 KB.
      byte[] ascii = value.hexAscii();
      g.writeRawUTF8String(ascii, 0, ascii.length);
    } else {
      g.writeString(value.hex());
    }
  }
}
