package org.meshjava.conformance;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An implementation under test. The runner hands it what {@code meta.json} records and compares
 * what it produces with the published bytes.
 */
public interface ConformanceSubject {

  /**
   * Encodes the receipt that {@code receiptJson} describes (the readable view in {@code
   * meta.json}: integers as numbers, byte strings as hex) as its canonical signed core.
   */
  byte[] encodeSignedCore(JsonNode receiptJson) throws Exception;

  /** Seals signed-core bytes as a JCR-1 envelope with the steward's 32-byte seed. */
  byte[] seal(byte[] signedCore, byte[] stewardSeed) throws Exception;

  /**
   * Performs the whole reference serve from the inputs and returns the envelope, or {@code null}
   * if the implementation has no reference engine: the byte-level checks still apply, and this one
   * check fails, since no answer is never a pass.
   */
  byte[] serve(ReferenceInputs inputs) throws Exception;
}
