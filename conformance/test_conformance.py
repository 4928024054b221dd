def test_conformance(yaml_test_case, runner):
    runner.run_test_case(yaml_test_case[1])
