/* FlipFour with bitboards: random playouts and perft, a yardstick for flipgames' kernel.

   Build: cc -O2 -march=native -o flipfour_bitboard flipfour_bitboard.c
   (bench/bench_yardstick_flipfour.py does it; -march=native gives the CPU's popcount
   instruction, and plain -O2 also works, slower)

   The rules are flipgames' (docs/rulings.md, FlipFour): the 5x5 board starts empty, each side
   has four pieces in hand, White moves first. A turn is a drop (a piece from hand on any
   empty square, either face up, no flip) or a move (one of your pieces goes along its lines,
   rook face orthogonally, bishop face diagonally, to any empty square at any distance,
   leaping over pieces of either colour, then shows its other face). No captures, no passing.
   After every action, four of the mover's pieces in an unbroken row, column or diagonal win
   for the mover; else a side to move with no legal action loses; else the third occurrence
   of a position (pieces, faces, pieces in hand, side to move) draws; drops only ever lower
   the pieces in hand, so positions are counted from the last drop. Playouts stop at the ply
   cap (200) once the position there is not over, as the kernel's do. perft ignores
   repetition, as ruling R3 says, and a position with four in a row has no actions.

   A position is three 25-bit masks (bit sq for square sq, a1 = 0, rank-major: b1 = 1,
   a2 = 5): White's pieces, Black's pieces, the pieces showing the bishop face; the pieces in
   hand; the side to move. Pieces leap, so a piece's targets are its empty-board lines minus
   the occupied squares, one AND. Four in a row is found by shifts: bits set in
   m & m >> d & m >> 2d & m >> 3d (d = 1 along ranks, 5 files, 6 and 4 the diagonals), kept
   only where a run starting there stays on the board.

   Action ids are flipgames' (docs/games/flipfour.md, notation): 0..24 a rook-face drop on
   that square, 25..49 a bishop-face drop on square id - 25, then 50 upwards one id for each
   ordered pair (from, to) of distinct squares on a common line, numbered by from, then to.
   Legal actions come in increasing id, and a random playout draws an index into that order
   (by counting set bits, listing nothing), so a seed plays the kernel's games.

   Usage:
     flipfour_bitboard perft DEPTH        perft(1..DEPTH) from the start, one line each
     flipfour_bitboard perftonly DEPTH    perft(DEPTH) alone and the CPU seconds it took
     flipfour_bitboard run SECONDS SEED   random playouts for SECONDS of CPU time, with rates
     flipfour_bitboard games COUNT SEED   COUNT random games, one line each:
                                          RESULT PLIES then per ply LEGAL:ACTION, where RESULT
                                          is W or B (that side won), D (repetition) or C
                                          (stopped at the cap), LEGAL the number of legal
                                          actions and ACTION the id played; the final
                                          position's LEGAL (0 when the game is over) closes
                                          the line as LEGAL:-
     flipfour_bitboard line ACTION...     the game of these action ids, then random actions,
                                          in the games format (seed 0); an illegal action
                                          stops it with RESULT X and exit status 1
   Times are CPU time of this process (CLOCK_PROCESS_CPUTIME_ID). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIZE 5
#define AREA 25
#define IN_HAND 4
#define CAP 200
#define DROPS 50
#define MAX_ACTIONS 128 /* 50 drops and the moves of three pieces, or four pieces' moves */
#define FILE_A 0x108421u
#define FILE_AB (FILE_A | FILE_A << 1) /* runs along a rank or up-right start on these files */
#define FILE_DE (FILE_A << 3 | FILE_A << 4) /* runs up-left start on these */

static uint32_t REACH[2][AREA]; /* [face][square]: the squares of the lines to the edge */
static int MOVE_ID[AREA][AREA]; /* the action id of from-to, or -1 */
static int MOVE_FROM[512], MOVE_TO[512];

typedef struct {
  uint32_t white, black, bishops;
  int hand[2];
  int side; /* 0 White, 1 Black */
} Position;

static void build_tables(void) {
  static const int steps[2][4][2] = {{{1, 0}, {-1, 0}, {0, 1}, {0, -1}},
                                     {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}};
  for (int face = 0; face < 2; face++)
    for (int sq = 0; sq < AREA; sq++) {
      uint32_t lines = 0;
      for (int d = 0; d < 4; d++) {
        int file = sq % SIZE + steps[face][d][0], rank = sq / SIZE + steps[face][d][1];
        for (; file >= 0 && file < SIZE && rank >= 0 && rank < SIZE;
             file += steps[face][d][0], rank += steps[face][d][1])
          lines |= 1u << (rank * SIZE + file);
      }
      REACH[face][sq] = lines;
    }
  int id = DROPS;
  for (int from = 0; from < AREA; from++)
    for (int to = 0; to < AREA; to++) {
      MOVE_ID[from][to] = -1;
      if ((REACH[0][from] | REACH[1][from]) >> to & 1) {
        MOVE_FROM[id - DROPS] = from;
        MOVE_TO[id - DROPS] = to;
        MOVE_ID[from][to] = id++;
      }
    }
}

/* Does m hold four in a row? A bit left in a run's mask is the run's first square; the file
   masks drop runs that would wrap round the board's side, and bits above 24 are zero. */
static inline int four(uint32_t m) {
  uint32_t rank = m & m >> 1, file = m & m >> 5, up = m & m >> 6, down = m & m >> 4;
  rank &= rank >> 2;
  file &= file >> 10;
  up &= up >> 12;
  down &= down >> 8;
  return ((rank & FILE_AB) | file | (up & FILE_AB) | (down & FILE_DE)) != 0;
}

static inline uint32_t mine_of(const Position *p) { return p->side ? p->black : p->white; }

static inline uint32_t targets(const Position *p, int sq, uint32_t empty) {
  return REACH[(p->bishops >> sq) & 1][sq] & empty;
}

/* How many legal actions the side to move has (repetition ignored). */
static inline int count_actions(const Position *p) {
  uint32_t empty = ~(p->white | p->black) & ((1u << AREA) - 1);
  int n = p->hand[p->side] ? 2 * __builtin_popcount(empty) : 0;
  for (uint32_t mine = mine_of(p); mine; mine &= mine - 1)
    n += __builtin_popcount(targets(p, __builtin_ctz(mine), empty));
  return n;
}

/* The legal actions as ids, increasing; returns how many. */
static int generate(const Position *p, int *out) {
  uint32_t empty = ~(p->white | p->black) & ((1u << AREA) - 1);
  int n = 0;
  if (p->hand[p->side])
    for (int face = 0; face < 2; face++)
      for (uint32_t e = empty; e; e &= e - 1) out[n++] = face * AREA + __builtin_ctz(e);
  for (uint32_t mine = mine_of(p); mine; mine &= mine - 1) {
    int from = __builtin_ctz(mine);
    for (uint32_t to = targets(p, from, empty); to; to &= to - 1)
      out[n++] = MOVE_ID[from][__builtin_ctz(to)];
  }
  return n;
}

static inline uint32_t nth_bit(uint32_t bits, int index) {
  while (index--) bits &= bits - 1;
  return (uint32_t)__builtin_ctz(bits);
}

/* The index-th legal action in increasing id order (0 <= index < count_actions(p)). */
static inline int nth_action(const Position *p, int index) {
  uint32_t empty = ~(p->white | p->black) & ((1u << AREA) - 1);
  if (p->hand[p->side]) {
    int free = __builtin_popcount(empty);
    if (index < 2 * free) return (index >= free) * AREA + nth_bit(empty, index % free);
    index -= 2 * free;
  }
  for (uint32_t mine = mine_of(p);; mine &= mine - 1) {
    int from = __builtin_ctz(mine);
    uint32_t to = targets(p, from, empty);
    int here = __builtin_popcount(to);
    if (index < here) return MOVE_ID[from][nth_bit(to, index)];
    index -= here;
  }
}

static inline void drop(Position *p, int sq, int face) {
  uint32_t bit = 1u << sq;
  if (p->side) p->black |= bit; else p->white |= bit;
  if (face) p->bishops |= bit;
  p->hand[p->side]--;
}

static inline void move(Position *p, int from, int to) {
  uint32_t start = 1u << from, arrival = 1u << to;
  if (p->side) p->black ^= start | arrival; else p->white ^= start | arrival;
  /* the piece lands showing its other face */
  uint32_t was_bishop = p->bishops & start;
  p->bishops &= ~start;
  if (!was_bishop) p->bishops |= arrival;
}

/* Play action for the side to move and pass the turn; returns 1 when the mover made four. */
static inline int play(Position *p, int action) {
  if (action < DROPS)
    drop(p, action % AREA, action / AREA);
  else
    move(p, MOVE_FROM[action - DROPS], MOVE_TO[action - DROPS]);
  int made = four(mine_of(p));
  p->side ^= 1;
  return made;
}

static uint64_t perft(const Position *p, int depth) {
  if (depth == 1) return (uint64_t)count_actions(p);
  uint32_t empty = ~(p->white | p->black) & ((1u << AREA) - 1);
  uint64_t total = 0;
  Position child;
  if (p->hand[p->side])
    for (int face = 0; face < 2; face++)
      for (uint32_t e = empty; e; e &= e - 1) {
        child = *p;
        drop(&child, __builtin_ctz(e), face);
        if (!four(mine_of(&child))) {
          child.side ^= 1;
          total += perft(&child, depth - 1);
        }
      }
  for (uint32_t mine = mine_of(p); mine; mine &= mine - 1) {
    int from = __builtin_ctz(mine);
    for (uint32_t to = targets(p, from, empty); to; to &= to - 1) {
      child = *p;
      move(&child, from, __builtin_ctz(to));
      if (!four(mine_of(&child))) {
        child.side ^= 1;
        total += perft(&child, depth - 1);
      }
    }
  }
  return total;
}

/* xorshift64* seeded through splitmix64, and a draw in [0, n) by multiply-shift (flipgames'
   convention, so a seed means the same here as in the kernel). */
static uint64_t rng_state;

static void seed_rng(uint64_t seed) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  rng_state = z ? z : 1;
}

static inline int below(int n) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  uint64_t high = (x * 0x2545F4914F6CDD1Dull) >> 32;
  return (int)((high * (uint64_t)n) >> 32);
}

/* Positions since the last drop, for the repetition rule: the pieces in hand cannot change
   without a drop and the side to move alternates, so only the masks of every second entry
   need comparing; a 1024-bit filter of their hashes skips the scan when the new position
   cannot have occurred. */
typedef struct {
  uint32_t white[CAP + 1], black[CAP + 1], bishops[CAP + 1];
  int length;
  uint64_t seen[16];
} History;

static inline void forget(History *h) {
  h->length = 0;
  memset(h->seen, 0, sizeof h->seen);
}

/* Record p; returns how many times it has occurred since the last drop, itself included. */
static inline int occurrences(History *h, const Position *p) {
  int count = 1;
  uint64_t hash = p->white * 0x9E3779B97F4A7C15ull ^ p->black * 0xC2B2AE3D27D4EB4Full ^
                  p->bishops * 0x165667B19E3779F9ull;
  uint64_t *word = &h->seen[hash >> 60], bit = 1ull << ((hash >> 54) & 63);
  if (*word & bit)
    for (int i = h->length - 2; i >= 0; i -= 2)
      count += h->white[i] == p->white && h->black[i] == p->black && h->bishops[i] == p->bishops;
  *word |= bit;
  h->white[h->length] = p->white;
  h->black[h->length] = p->black;
  h->bishops[h->length] = p->bishops;
  h->length++;
  return count;
}

static void start(Position *p) {
  memset(p, 0, sizeof *p);
  p->hand[0] = p->hand[1] = IN_HAND;
}

/* One random game, or the game of the given actions while they last (an illegal one stops
   it with result 'X'); returns its plies and sets *result ('W', 'B', 'D' or 'C'). When out
   is not NULL the game is printed there in the games format. */
static int playout(History *h, char *result, FILE *out, const int *given, int given_count) {
  Position p;
  start(&p);
  forget(h);
  int count = occurrences(h, &p), ply = 0, made = 0, n = 0;
  static char line[CAP * 12 + 64];
  int used = 0;
  line[0] = 0;
  for (;;) {
    n = made ? 0 : count_actions(&p);
    if (made || !n) { /* the mover's four wins; no legal action loses: either way the */
      *result = p.side ? 'W' : 'B'; /* side not to move has won */
      break;
    }
    if (count >= 3) {
      n = 0;
      *result = 'D';
      break;
    }
    if (ply >= CAP) {
      *result = 'C';
      break;
    }
    int action;
    if (ply < given_count) {
      int actions[MAX_ACTIONS], found = 0;
      generate(&p, actions);
      for (int i = 0; i < n; i++) found |= actions[i] == given[ply];
      if (!found) {
        *result = 'X';
        break;
      }
      action = given[ply];
    } else {
      action = nth_action(&p, below(n));
    }
    if (out) used += sprintf(line + used, " %d:%d", n, action);
    made = play(&p, action);
    ply++;
    if (action < DROPS) forget(h);
    count = occurrences(h, &p);
  }
  if (out) fprintf(out, "%c %d%s %d:-\n", *result, ply, line, made ? 0 : n);
  return ply;
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int usage(const char *name) {
  fprintf(stderr,
          "usage: %s perft DEPTH | perftonly DEPTH | run SECONDS SEED | games COUNT SEED | "
          "line ACTION...\n",
          name);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage(argv[0]);
  build_tables();
  Position p;
  start(&p);
  static History history;
  if (!strcmp(argv[1], "perft") || !strcmp(argv[1], "perftonly")) {
    int depth = atoi(argv[2]);
    if (depth < 1) return usage(argv[0]);
    if (argv[1][5] == 'o') {
      double began = cpu_seconds();
      uint64_t leaves = perft(&p, depth);
      printf("perft(%d) = %llu cpu=%.6f\n", depth, (unsigned long long)leaves,
             cpu_seconds() - began);
    } else {
      for (int d = 1; d <= depth; d++)
        printf("perft(%d) = %llu\n", d, (unsigned long long)perft(&p, d));
    }
    return 0;
  }
  char result;
  if (!strcmp(argv[1], "line")) {
    static int given[CAP];
    int count = 0;
    for (int i = 2; i < argc && count < CAP; i++) given[count++] = atoi(argv[i]);
    seed_rng(0);
    playout(&history, &result, stdout, given, count);
    return result == 'X';
  }
  if (argc < 4) return usage(argv[0]);
  seed_rng(strtoull(argv[3], NULL, 10));
  if (!strcmp(argv[1], "games")) {
    long count = atol(argv[2]);
    for (long g = 0; g < count; g++) playout(&history, &result, stdout, NULL, 0);
    return 0;
  }
  if (strcmp(argv[1], "run")) return usage(argv[0]);
  double seconds = atof(argv[2]), began = cpu_seconds(), spent;
  long long games = 0, plies = 0, capped = 0, wins[2] = {0, 0}, draws = 0;
  do {
    for (int i = 0; i < 1024; i++) {
      plies += playout(&history, &result, NULL, NULL, 0);
      capped += result == 'C';
      draws += result == 'D';
      wins[0] += result == 'W';
      wins[1] += result == 'B';
    }
    games += 1024;
    spent = cpu_seconds() - began;
  } while (spent < seconds);
  printf("cpu=%.3f playouts=%lld playouts/s=%.1f plies/s=%.1f mean_plies=%.2f capped=%lld "
         "white=%lld black=%lld draws=%lld\n",
         spent, games, games / spent, plies / spent, (double)plies / games, capped, wins[0],
         wins[1], draws);
  return 0;
}
