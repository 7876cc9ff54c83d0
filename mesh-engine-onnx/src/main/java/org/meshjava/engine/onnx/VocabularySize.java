package org.meshjava.engine.onnx;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Reads the vocabulary size of a Hugging Face {@code tokenizer.json}: one more than the largest id
 * in {@code model.vocab} or {@code added_tokens}. Payload ids at or above it would index past the
 * embedding table, so the engine refuses them before the forward pass. Stateless.
 */
final class VocabularySize {
  private VocabularySize() {}

  static long of(byte[] tokenizerJson) throws OnnxEngineException {
    long max = -1;
    try (JsonParser p = new JsonFactory().createParser(tokenizerJson)) {
      String vocabOwner = null;
      int depth = 0;
      boolean inVocab = false;
      int vocabDepth = -1;
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
          depth++;
          if (t == JsonToken.START_OBJECT && "vocab".equals(vocabOwner)) {
            inVocab = true;
            vocabDepth = depth;
          }
          vocabOwner = null;
        } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
          if (inVocab && depth == vocabDepth) {
            inVocab = false;
          }
          depth--;
        } else if (t == JsonToken.FIELD_NAME) {
          vocabOwner = p.currentName();
          if (!inVocab && "id".equals(vocabOwner) && p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
            max = Math.max(max, p.getLongValue());
            vocabOwner = null;
          }
        } else if (inVocab && t == JsonToken.VALUE_NUMBER_INT) {
          max = Math.max(max, p.getLongValue());
        } else {
          vocabOwner = null;
        }
      }
    } catch (JacksonException e) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "tokenizer.json is not JSON: " + e, e);
    } catch (IOException e) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "cannot read tokenizer.json: " + e, e);
    }
    if (max < 0) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "tokenizer.json has no vocabulary");
    }
    return max + 1;
  }
}
