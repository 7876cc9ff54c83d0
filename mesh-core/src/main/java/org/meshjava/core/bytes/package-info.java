/**
 * The immutable byte value every fixed or variable byte string of mesh-java extends ({@link
 * org.meshjava.core.bytes.ByteValue}): one definition of copying, equality, hashing and hex.
 */
package org.meshjava.core.bytes;
