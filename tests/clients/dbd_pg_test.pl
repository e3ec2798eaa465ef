# Perl's DBI with DBD::Pg (Debian's libdbd-pg-perl) against a server: DDL,
# a statement prepared once and run with RETURNING, the DBI metadata calls
# (table_info, column_info, primary_key_info, foreign_key_info, which needs
# pg_depend's key dependencies, statistics_info, which asks
# pg_index_column_has_property, type_info_all), a failed transaction rolled
# back, COPY both ways, arrays, LISTEN/NOTIFY. Passes against PostgreSQL 15
# unchanged.
#
#   perl dbd_pg_test.pl HOST PORT USER DBNAME
# Prints "  ok: ..." / "  FAILED: ..." per check and "N passed, M failed"
# last; exits non-zero on a failure.
use strict;
use warnings;
use DBI;

my ($host, $port, $user, $db) = @ARGV;
my ($passed, $failed) = (0, 0);
sub check {
  my ($ok, $what, $detail) = @_;
  if ($ok) { $passed++; print "  ok: $what\n"; }
  else { $failed++; print "  FAILED: $what: ", (defined $detail ? $detail : ''), "\n"; }
}

my $dbh = DBI->connect("dbi:Pg:dbname=$db;host=$host;port=$port", $user, '',
                       { RaiseError => 1, PrintError => 0, PrintWarn => 0, AutoCommit => 1 });
eval {
  $dbh->do('SET client_min_messages = warning');
  $dbh->do('DROP TABLE IF EXISTS pl_child');
  $dbh->do('DROP TABLE IF EXISTS pl_parent');
  $dbh->do('CREATE TABLE pl_parent (id serial PRIMARY KEY, name varchar(40) NOT NULL UNIQUE, score numeric(6,2) DEFAULT 1.5)');
  $dbh->do('CREATE TABLE pl_child (id int PRIMARY KEY, pid int REFERENCES pl_parent (id), note text)');
  $dbh->do('CREATE INDEX pl_child_note ON pl_child (note)');
  my $sth = $dbh->prepare('INSERT INTO pl_parent (name) VALUES (?) RETURNING id');
  my @ids;
  for my $i (1 .. 20) { $sth->execute("n$i"); push @ids, ($sth->fetchrow_array)[0]; }
  check("@ids" eq join(' ', 1 .. 20), 'a prepared INSERT ... RETURNING run 20 times', "@ids");

  my $tables = $dbh->table_info(undef, 'public', 'pl_%', 'TABLE')->fetchall_arrayref({});
  check(join(',', sort map { $_->{TABLE_NAME} } @$tables) eq 'pl_child,pl_parent', 'table_info');
  my $cols = $dbh->column_info(undef, 'public', 'pl_parent', '%')->fetchall_arrayref({});
  my %col = map { $_->{COLUMN_NAME} => $_ } @$cols;
  check(@$cols == 3 && $col{name}{COLUMN_SIZE} == 40 && $col{name}{NULLABLE} == 0 && $col{score}{COLUMN_DEF} eq '1.5',
        'column_info', join(',', map { "$_->{COLUMN_NAME}:$_->{TYPE_NAME}" } @$cols));
  my @pk = $dbh->primary_key(undef, 'public', 'pl_parent');
  check("@pk" eq 'id', 'primary_key', "@pk");
  my $fks = $dbh->foreign_key_info(undef, 'public', 'pl_parent', undef, 'public', 'pl_child')->fetchall_arrayref({});
  check(@$fks == 1 && $fks->[0]{FK_COLUMN_NAME} eq 'pid' && $fks->[0]{UK_COLUMN_NAME} eq 'id' &&
        $fks->[0]{UNIQUE_OR_PRIMARY} eq 'PRIMARY', 'foreign_key_info', scalar(@$fks) . ' rows');
  my $stats = $dbh->statistics_info(undef, 'public', 'pl_child', 0, 0)->fetchall_arrayref({});
  my @indexes = sort map { ($_->{INDEX_NAME} // '') . ':' . ($_->{ASC_OR_DESC} // '') } grep { $_->{INDEX_NAME} } @$stats;
  check("@indexes" eq 'pl_child_note:A pl_child_pkey:A', 'statistics_info', "@indexes");
  check(ref($dbh->type_info_all) eq 'ARRAY', 'type_info_all');

  $dbh->begin_work;
  $dbh->do('UPDATE pl_parent SET score = 9 WHERE id = 1');
  eval { $dbh->do("INSERT INTO pl_parent (name) VALUES ('n1')") };
  check($dbh->state eq '23505', 'a unique violation inside a transaction', $dbh->state);
  $dbh->rollback;
  check($dbh->selectrow_array('SELECT score FROM pl_parent WHERE id = 1') == 1.5, 'the failed transaction rolled back');

  $dbh->do('COPY pl_child (id, note) FROM STDIN');
  $dbh->pg_putcopydata("$_\tnote $_\n") for 1 .. 50;
  $dbh->pg_putcopyend;
  check($dbh->selectrow_array('SELECT count(*) FROM pl_child') == 50, 'COPY FROM STDIN');
  $dbh->do('COPY (SELECT id, note FROM pl_child WHERE id <= 2 ORDER BY id) TO STDOUT');
  my ($line, $out) = ('', '');
  $out .= $line while $dbh->pg_getcopydata($line) >= 0;
  check($out eq "1\tnote 1\n2\tnote 2\n", 'COPY TO STDOUT', $out);

  my $row = $dbh->selectrow_arrayref(q{SELECT ARRAY[1, 2, 3], ARRAY['a', NULL]::text[]});
  check(ref($row->[0]) eq 'ARRAY' && "@{$row->[0]}" eq '1 2 3' && !defined $row->[1][1], 'arrays as Perl arrays');

  $dbh->do('LISTEN pl_channel');
  $dbh->do(q{NOTIFY pl_channel, 'hello'});
  my $n = $dbh->pg_notifies;
  check($n && $n->[0] eq 'pl_channel' && $n->[2] eq 'hello', 'LISTEN/NOTIFY (pg_notifies)');
};
check(0, 'the checks ran to their end', $@) if $@;
print "\n$passed passed, $failed failed\n";
exit($failed ? 1 : 0);
