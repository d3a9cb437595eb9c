/*
 * Copyright 2026 The Falcon Authors. Licensed under the Apache License 2.0.
 */
package io.falconstate.jmh;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A pre-generated access sequence over {@code n} keys (boxed once, so the benchmark loop allocates
 * nothing itself): uniform, or Zipf with exponent {@code alpha} over a random permutation of the
 * keys (the hottest key is not key 0, so hot keys spread over key groups).
 */
public final class KeySequence {

    public static final int LENGTH = 1 << 20;
    public static final int MASK = LENGTH - 1;

    /** The key objects, {@code keys[i] == i}. */
    public final Long[] keys;

    /** Indices into {@link #keys}, {@link #LENGTH} long. */
    public final int[] sequence;

    private KeySequence(Long[] keys, int[] sequence) {
        this.keys = keys;
        this.sequence = sequence;
    }

    public static Long[] boxedKeys(int n) {
        Long[] keys = new Long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = (long) i;
        }
        return keys;
    }

    public static KeySequence of(String distribution, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] sequence = new int[LENGTH];
        switch (distribution) {
            case "uniform":
                for (int i = 0; i < LENGTH; i++) {
                    sequence[i] = random.nextInt(n);
                }
                break;
            case "zipf":
                double alpha = 0.99;
                double[] cdf = new double[n];
                double sum = 0;
                for (int rank = 0; rank < n; rank++) {
                    sum += 1.0 / Math.pow(rank + 1, alpha);
                    cdf[rank] = sum;
                }
                int[] permutation = new int[n];
                for (int i = 0; i < n; i++) {
                    permutation[i] = i;
                }
                for (int i = n - 1; i > 0; i--) {
                    int j = random.nextInt(i + 1);
                    int t = permutation[i];
                    permutation[i] = permutation[j];
                    permutation[j] = t;
                }
                for (int i = 0; i < LENGTH; i++) {
                    double u = random.nextDouble() * sum;
                    int rank = Arrays.binarySearch(cdf, u);
                    if (rank < 0) {
                        rank = -rank - 1;
                    }
                    sequence[i] = permutation[Math.min(rank, n - 1)];
                }
                break;
            default:
                throw new IllegalArgumentException("unknown distribution " + distribution);
        }
        return new KeySequence(boxedKeys(n), sequence);
    }

    /** A 64-byte value whose bytes depend on {@code seed}. */
    public static byte[] value(int seed) {
        byte[] v = new byte[64];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (seed * 31 + i);
        }
        return v;
    }
}
