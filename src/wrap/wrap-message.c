/* wrap-message.c - one datagram of the runtime, read.
 * See wrap-message.h for the contract. */
#include "config.h"

#include "wrap-message.h"

#include <string.h>

/* What each kind of line holds. */
enum detail_rule { NO_DETAIL, DETAIL_OPTIONAL, DETAIL_NEEDED, FREE_TEXT };

static const struct kind_rule {
	char kind;
	enum detail_rule detail;
	bool descriptor; /* the line is meaningless without one */
} kind_rules[] = {
	{ 'P', DETAIL_OPTIONAL, false }, /* part, pid */
	{ 'F', DETAIL_NEEDED, false },   /* part, final name */
	{ 'X', DETAIL_NEEDED, false },   /* part, program */
	{ 'N', NO_DETAIL, false },       /* part */
	{ 'E', DETAIL_NEEDED, false },   /* part, reason */
	{ 'W', DETAIL_NEEDED, false },   /* part, reason */
	{ 'H', NO_DETAIL, true },        /* part, with the final file */
	{ 'C', NO_DETAIL, true },        /* "0" or "1", with a socket */
	{ 'S', DETAIL_NEEDED, false },   /* pid, name */
	{ 'A', DETAIL_NEEDED, false },   /* pid, why it was left alone */
	{ 'M', FREE_TEXT, false },       /* a message, tabs and all */
};

static const struct kind_rule *find_rule(char kind)
{
	for (size_t i = 0; i < sizeof kind_rules / sizeof *kind_rules; i++)
		if (kind_rules[i].kind == kind)
			return &kind_rules[i];
	return NULL;
}

/* Whether DATA starts with KEY and a space; in a time that does not tell
 * how much of the key was right. */
static bool has_key(const char *data, size_t length, const char *key)
{
	size_t key_length = strlen(key);
	unsigned char differ = 0;

	if (key_length == 0 || length <= key_length)
		return false;
	for (size_t i = 0; i < key_length; i++)
		differ |= (unsigned char)(data[i] ^ key[i]);
	return differ == 0 && data[key_length] == ' ';
}

/* Whether LINE (LENGTH bytes, without the key) is one of the runtime's,
 * split in place into *MESSAGE when it is. */
static bool read_line(char *line, size_t length, bool with_descriptor,
		      struct wrap_message *message)
{
	const struct kind_rule *rule;
	char *tab;

	/* Whole: "K s\n" at least.  A newline inside (a path may hold one)
	 * is escaped when shown; a zero byte would cut the strings short. */
	if (length < 4 || line[length - 1] != '\n' || line[1] != ' ' ||
	    memchr(line, '\0', length) != NULL)
		return false;
	rule = find_rule(line[0]);
	if (rule == NULL || (rule->descriptor && !with_descriptor))
		return false;
	line[length - 1] = '\0';
	tab = rule->detail == FREE_TEXT ? NULL : strchr(line + 2, '\t');
	if ((tab != NULL && rule->detail == NO_DETAIL) ||
	    (tab == NULL && rule->detail == DETAIL_NEEDED) || tab == line + 2)
		return false;
	if (tab != NULL)
		*tab = '\0';
	*message = (struct wrap_message){ .kind = line[0],
					  .subject = line + 2,
					  .detail = tab ? tab + 1 : NULL };
	return true;
}

enum wrap_message_verdict wrap_message_read(char *data, size_t length,
					    const char *key,
					    bool with_descriptor,
					    struct wrap_message *message)
{
	size_t skip = strlen(key) + 1;

	if (!has_key(data, length, key))
		return WRAP_MESSAGE_FOREIGN;
	return read_line(data + skip, length - skip, with_descriptor, message)
		       ? WRAP_MESSAGE_OK
		       : WRAP_MESSAGE_MALFORMED;
}
