/* The bundled default input of scripts/setup.sh: a few of the constructs
 * btfc converts (structs with bitfields, unions, enums, function pointers,
 * a per-function prototype). */
struct list_head {
	struct list_head *next, *prev;
};

enum state { STATE_IDLE, STATE_RUNNING = 4, STATE_DEAD = -1 };

struct task {
	struct list_head node;
	unsigned int flags : 3, prio : 5;
	enum state state;
	union {
		long id;
		void *cookie;
	};
	int (*callback)(struct task *t, const char *why);
	char name[16];
};

int task_count;

int run_task(struct task *t)
{
	return t->callback ? t->callback(t, "run") : t->prio;
}
